"""How Canvas's and Moodle's gradebook imports read a CSV, written down from their import code, so that
tests check an export by what the LMS would do with it rather than by its bytes.

Canvas (app/models/gradebook_importer.rb): the file is read as UTF-8 by Ruby's CSV, comma or semicolon;
the header row must have "Student" in its first cell, "ID" in its second and "Section" in its last
student column (after SIS User ID, SIS Login ID, an optional Integration ID). Every later column that
is not a total (Current/Final/Unposted/Override ...) is an assignment: `<title> (<id>)`
(Assignment.title_and_id) updates the assignment with that id; otherwise the assignment titled exactly
so; otherwise a new assignment is created. A row whose first cell has "Points Possible" is skipped;
a student row is matched by its ID cell.

Moodle (grade/import/csv, csv_import_reader): the file is decoded with the encoding chosen on the form
(UTF-8 by default), a UTF-8 byte-order mark removed, headers trimmed; users are identified by the column
mapped to `useremail` (or `useridnumber`); since Moodle 4.1 a header `<grade item> (Real)`, where the
grade item is displayed as `<module name>: <item name>`, is mapped to that item by default.
"""

from __future__ import annotations

import csv
import io
import re

CANVAS_NON_ASSIGNMENT = re.compile("Current Score|Current Points|Current Grade|Final Score|Final Points|"
                                   "Final Grade|Override Score|Override Grade|Override Status")


def read_as_canvas(data: bytes, assignments: dict[str, str], students: set[str]) -> dict:
    """What Canvas's import does with `data` in a course with `assignments` ({id: title}) and `students`
    (user ids): {"updated": {assignment id: {user id: grade}}, "created": {title: {...}}, "unknown
    students": [...]}. AssertionError where Canvas would reject the file."""
    text = data.decode("utf-8")  # Ruby keeps a BOM as part of the first cell
    first = text.splitlines()[0] if text else ""
    sep = ";" if len(next(csv.reader([first], delimiter=";"))) > len(next(csv.reader([first]))) else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=sep))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], f"invalid header row: {header}"
    columns = 3
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        columns += 1
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        columns += 2 + (1 if len(header) > 4 and re.search(r"Integration\s+ID", header[4]) else 0)
    assert "Section" in header[columns - 1], f"invalid header row (no Section column): {header}"
    by_title = {title: key for key, title in assignments.items()}
    targets = []  # (column index, ("updated", id) or ("created", title))
    for index, name in enumerate(header[columns:], columns):
        if CANVAS_NON_ASSIGNMENT.search(name):
            continue
        m = re.fullmatch(r"(.*)\s\((\d+)\)", name)
        if m and m[2] in assignments:
            targets.append((index, ("updated", m[2])))
        elif name in by_title:
            targets.append((index, ("updated", by_title[name])))
        else:
            targets.append((index, ("created", m[1] if m else name)))
    out: dict = {"updated": {}, "created": {}, "unknown students": []}
    for row in rows[1:]:
        if not row or "Points Possible" in row[0]:
            continue
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row):
            continue
        if row[1] not in students:
            out["unknown students"].append(row[1] or row[0])
            continue
        for index, (kind, key) in targets:
            grade = row[index].strip() if index < len(row) else ""
            if grade:
                out[kind].setdefault(key, {})[row[1]] = grade
    return out


def read_as_moodle(data: bytes, items: list[str], identify_by: str = "Email address",
                   encoding: str = "UTF-8") -> dict:
    """What Moodle's CSV import does with `data` in a course whose grade items display as `items`
    (`Assignment: Notebook 01`), users identified by the column `identify_by`: {"mapped": {item: {user:
    grade}}, "unmapped": [headers left for the teacher to map]}."""
    text = data.decode(encoding)
    text = text.removeprefix("\ufeff")  # core_text::trim_utf8_bom
    rows = list(csv.reader(io.StringIO(text)))
    header = [h.strip() for h in rows[0]]
    assert identify_by in header, f"no column {identify_by!r} to identify users by: {header}"
    who = header.index(identify_by)
    mapped, unmapped = {}, []
    for index, h in enumerate(header):
        if "(Real)" in h and h.split("(Real)")[0].strip() in items:
            mapped[index] = h.split("(Real)")[0].strip()
        elif index != who and h not in ("First name", "Last name", "ID number", "Email address"):
            unmapped.append(h)
    out: dict = {"mapped": {}, "unmapped": unmapped}
    for row in rows[1:]:
        for index, item in mapped.items():
            if row[index].strip() not in ("", "-"):
                out["mapped"].setdefault(item, {})[row[who]] = row[index].strip()
    return out
