"""Grades back into the LMS the submissions came from: Canvas's and Moodle's gradebook import CSVs.

`collect` names students by what their LMS download says (layouts.origin_of); it also keeps here, in
`<grading folder>/lms-students.json`, what the LMS needs to find them again:

    {"doejane":  {"lms": "canvas", "canvas_user_id": "12345"},
     "jane-doe": {"lms": "moodle", "name": "Jane Doe", "moodle_participants": {"01_square": "4242"}}}

Canvas (Grades > Import) matches rows by its user id: the `ID` column, which a Canvas download gives
(`doejane_12345_...`). Its CSV is the gradebook export's: Student, ID, SIS User ID, SIS Login ID, Section,
one column per assignment, and a "Points Possible" row second.

Moodle (Grades > Import > CSV file) matches rows by a column mapped to the user's email address or ID
number. A Moodle download names neither (its number is a per-assignment participant id), so those come
from a roster: the CSV Moodle's own grade export (or the participants page) writes, with First name, Last
name, ID number and Email address, matched to students by name.
"""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from autograder.classroom import layouts
from autograder.classroom.gradebook import GradebookWriter, write_safe_csv
from autograder.classroom.layouts import Found, name_id
from autograder.classroom.submissions import atomic_write, check_assignment, home
from autograder.engine import grading, notebooks

IDENTITIES = "lms-students.json"
FORMATS = ("canvas", "moodle")
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = ["First name", "Last name", "ID number", "Email address"]


def identities_path() -> Path:
    return home() / IDENTITIES


def identities() -> dict:
    try:
        data = json.loads(identities_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# -------------------------------------------------------------------------------------------- collect

def collect(source: Path, assignment: str | None = None, log: layouts.CollectLog | None = None,
            due: str | None = None) -> list:
    """layouts.collect, then record the LMS identities of the students it collected."""
    found: list[Found] = []
    collected = layouts.collect(source, assignment, found, log, due)
    try:
        record_identities(collected, found)
    except (OSError, ValueError) as error:  # the submissions are in; only the ids are not
        warnings.warn(f"{source}: LMS ids not recorded ({error}); export --format canvas|moodle needs --roster",
                      stacklevel=2)
    return collected


def record_identities(collected: list, found: list[Found]) -> dict:
    """What collect's student ids leave out (the Canvas user id, the Moodle name and participant ids), for
    the students collect took, from the download's notebooks as collect read them (`found`), merged into
    lms-students.json."""
    students = {s.student for s in collected}
    data = identities()
    for item in found:
        origin = item.origin
        if origin.student not in students or origin.lms not in FORMATS:
            continue
        entry = data.setdefault(origin.student, {})
        entry["lms"] = origin.lms
        if origin.lms == "canvas":
            if origin.student.startswith("anon-"):
                entry["canvas_anonymous_id"] = origin.key
            else:
                entry["canvas_user_id"] = origin.key
            continue
        name = next((m["name"] for part in item.rel.parts
                     if (m := layouts.MOODLE.match(Path(part).stem if part == item.rel.name else part))), None)
        if name and not origin.student.startswith("participant-"):
            entry["name"] = name
        if item.source is not None:
            entry.setdefault("moodle_participants", {})[item.source.assignment] = origin.key
    if data:
        atomic_write(identities_path(), json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


# --------------------------------------------------------------------------------------------- export

class ExportError(ValueError):
    """An export that would be wrong or empty: a roster of the wrong kind, an assignment without grades,
    nobody matched. Nothing is written; the CLI prints the sentence and exits non-zero."""


@dataclass
class Column:
    assignment: str
    header: str             # as written in the CSV's first row
    matched_by: str         # canvas: "id" (that assignment is updated), "title" (one titled exactly so, else
                            # a new one), "new" (the roster has none: Canvas creates it); moodle: "header"


@dataclass
class Export:
    path: Path
    students: int
    skipped: list[str]
    columns: list[Column] = field(default_factory=list)


def gradebook_scores(db_url: str | None = None) -> tuple[dict, dict]:
    """({student: {assignment: score}}, {assignment: points possible}) from the gradebook."""
    rows = GradebookWriter(db_url).scores()
    scores: dict[str, dict[str, float]] = {}
    possible: dict[str, float] = {}
    for row in rows:
        scores.setdefault(row["student"], {})[row["assignment"]] = row["score"]
        possible[row["assignment"]] = max(possible.get(row["assignment"], 0.0), row["max_score"] or 0.0)
    for source in notebooks.sources():  # an assignment's points are its tests', graded or not
        if source.assignment in possible:
            _, tests = grading.plan(source, None)
            possible[source.assignment] = max(possible[source.assignment], sum(p for _, p, _ in tests))
    return scores, possible


# What tells the two rosters apart: their own exports' columns (English, as both LMSs write them).
CANVAS_ROSTER_COLUMNS = ("Student", "ID")
MOODLE_NAME_COLUMNS = (("First name", "Last name"), ("Full name",))
MOODLE_ID_COLUMNS = ("Email address", "ID number")
ROSTER_HELP = {"canvas": "Canvas's gradebook export (Grades > Export: Student, ID, SIS User ID, SIS Login ID, "
                         "Section, one column per assignment)",
               "moodle": "Moodle's grade export (Grades > Export > Plain text file: First name, Last name, "
                         "ID number, Email address, one column per grade item)"}


def roster_kind(header: list[str]) -> str | None:
    """"canvas" or "moodle" by the columns of a roster's first row, None if it is neither."""
    names = {h.strip() for h in header}
    if all(c in names for c in CANVAS_ROSTER_COLUMNS):
        return "canvas"
    named = any(all(c in names for c in group) for group in MOODLE_NAME_COLUMNS)
    if named and any(c in names for c in MOODLE_ID_COLUMNS):
        return "moodle"
    return None


def load_roster(path: Path | None, fmt: str | None = None) -> tuple[list[str], list[dict]]:
    """(header, rows) of an LMS's own grades export (comma, semicolon or tab separated, as either LMS may
    write it); with `fmt`, ExportError unless it is that LMS's."""
    if path is None:
        return [], []
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ExportError(f"--roster {path}: not a UTF-8 CSV file (is it the LMS's grades export, saved as "
                          "CSV?)") from None
    first = text.splitlines()[0] if text.strip() else ""
    try:
        delimiter = max(",;\t", key=lambda d: len(next(csv.reader([first], delimiter=d), [])))
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
        header = [(h or "").strip() for h in reader.fieldnames or []]
        rows = [{(k or "").strip(): (v or "").strip() for k, v in row.items() if isinstance(v, str) or v is None}
                for row in reader]
    except csv.Error as error:
        raise ExportError(f"--roster {path}: not a readable CSV file ({error})") from None
    kind = roster_kind(header)
    if fmt is None or kind == fmt:
        return header, rows
    if kind is not None:
        raise ExportError(f"--roster {path} is {ROSTER_HELP[kind].split(' (')[0]}, not {fmt.capitalize()}'s: "
                          f"pass it to export --format {kind}, or give export --format {fmt} "
                          f"{ROSTER_HELP[fmt]}")
    shown = ", ".join(header[:8]) + (", ..." if len(header) > 8 else "") if header else "none (the file is empty)"
    raise ExportError(f"--roster {path} is not {ROSTER_HELP[fmt]}: it has none of those columns (its columns: "
                      f"{shown})")


def parse_columns(specs: list[str] | None) -> dict[str, str]:
    """`--column ASSIGNMENT=HEADER` (repeatable) -> {assignment: header}."""
    out: dict[str, str] = {}
    for spec in specs or []:
        assignment, sep, header = spec.partition("=")
        assignment, header = assignment.strip(), header.strip()
        if not sep or not assignment or not header:
            raise ExportError(f"--column {spec!r}: write it ASSIGNMENT=\"LMS column\", e.g. "
                              f"--column 01_square=\"Notebook 01 - The skeleton (998877)\"")
        if assignment in out and out[assignment] != header:
            raise ExportError(f"--column {assignment} is given twice ({out[assignment]!r} and {header!r})")
        out[assignment] = header
    return out


def number_text(value: float) -> str:
    return f"{value:g}"


# Canvas's importer reads an assignment's header as `<title> (<id>)` (Assignment.title_and_id) and then
# updates the assignment with that id; a header without an id updates the assignment titled exactly so,
# and anything else becomes a new assignment.
_CANVAS_TITLE_ID = re.compile(r"(?P<title>.*)\s\((?P<id>\d+)\)")
_MOODLE_ITEM = re.compile(r"(?P<item>(?P<module>[^:]+): (?P<name>.+)) \((?:Real|Percentage|Letter)\)")


def column_id(header: str) -> str | None:
    """The Canvas assignment id a column header names (`Notebook 01 (998877)` -> `998877`), if any."""
    m = _CANVAS_TITLE_ID.fullmatch(header)
    return m["id"] if m else None


def canvas_columns(assignments: list[str], roster: list[dict], given: dict[str, str],
                   roster_header: list[str] | None = None) -> list[Column]:
    """Each assignment's Canvas column: `--column`'s (a `title (id)`, an id, or a title the roster has),
    else the roster's column titled like the assignment, else the assignment's name (a new column, unless
    Canvas has an assignment titled exactly so)."""
    header = roster_header if roster_header is not None else (list(roster[0]) if roster else [])
    by_id = {m["id"]: h for h in header if (m := _CANVAS_TITLE_ID.fullmatch(h))}
    by_title: dict[str, list[str]] = {}
    for h in by_id.values():
        by_title.setdefault(_CANVAS_TITLE_ID.fullmatch(h)["title"].strip(), []).append(h)
    listing = "; ".join(by_id.values()) or "none"
    out = []
    for assignment in assignments:
        value = given.get(assignment)
        if value is None:
            found = by_title.get(assignment, [])
            out.append(Column(assignment, found[0], "id") if len(found) == 1
                       else Column(assignment, assignment, "new" if header else "title"))
            continue
        m = _CANVAS_TITLE_ID.fullmatch(value)
        wanted_id = m["id"] if m else value if value.isdigit() else None
        if wanted_id is not None:
            if header and wanted_id not in by_id:
                raise ExportError(f"--column {assignment}={value!r}: the Canvas gradebook export given as --roster "
                                  f"has no assignment with id {wanted_id} (its assignments: {listing})")
            out.append(Column(assignment, by_id.get(wanted_id) or (value if m else f"{assignment} ({value})"), "id"))
            continue
        found = by_title.get(value, [])
        if len(found) > 1:
            raise ExportError(f"--column {assignment}={value!r}: the roster has {len(found)} assignments titled so "
                              f"({'; '.join(found)}): name one by its id, --column {assignment}=\"{found[0]}\"")
        if found:
            out.append(Column(assignment, found[0], "id"))
        elif header:
            raise ExportError(f"--column {assignment}={value!r}: the Canvas gradebook export given as --roster has "
                              f"no assignment titled so (its assignments: {listing})")
        else:
            out.append(Column(assignment, value, "title"))
    return out


def moodle_columns(assignments: list[str], roster: list[dict], given: dict[str, str],
                   roster_header: list[str] | None = None) -> list[Column]:
    """Each assignment's Moodle column, headed as Moodle's export heads a grade item (`Assignment: 01_square
    (Real)`), which Moodle 4.1+ maps to that item by itself: `--column`'s item (its `(Real)` added), else the
    roster's item named like the assignment, else `Assignment: <assignment> (Real)`."""
    header = roster_header if roster_header is not None else (list(roster[0]) if roster else [])
    items = {h: m for h in header if (m := _MOODLE_ITEM.fullmatch(h))}
    out = []
    for assignment in assignments:
        value = given.get(assignment)
        if value is None:
            found = [h for h, m in items.items() if m["name"] == assignment]
            default = f"Assignment: {assignment} (Real)"
            out.append(Column(assignment, found[0] if len(found) == 1 else default, "header"))
            continue
        if _MOODLE_ITEM.fullmatch(value):
            out.append(Column(assignment, value, "header"))
            continue
        found = [h for h, m in items.items() if value in (m["item"], m["name"])]
        out.append(Column(assignment, found[0] if len(found) == 1 else f"{value} (Real)", "header"))
    return out


def squashed(name: str) -> str:
    """Canvas's name in its download: the sortable name, lowercase, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", name_id(name))


def canvas_rows(scores: dict, possible: dict, ids: dict, roster: list[dict],
                columns: list[Column] | None = None) -> tuple[list[list[str]], list[str]]:
    columns = columns if columns is not None else canvas_columns(sorted(possible), roster, {})
    assignments = [c.assignment for c in columns]
    by_id = {r.get("ID", ""): r for r in roster if r.get("ID", "").isdigit()}
    by_name = {squashed(r.get("Student", "")): r for r in by_id.values()}
    rows = [CANVAS_COLUMNS + [c.header for c in columns],
            ["Points Possible", "", "", "", ""] + [number_text(possible[a]) for a in assignments]]
    skipped = []
    for student in sorted(scores):
        canvas_id = ids.get(student, {}).get("canvas_user_id")
        person = by_id.get(canvas_id) if canvas_id else by_name.get(student)
        canvas_id = canvas_id or (person or {}).get("ID")
        if not canvas_id:
            skipped.append(student)
            continue
        person = person or {}
        rows.append([person.get("Student") or student, canvas_id, person.get("SIS User ID", ""),
                     person.get("SIS Login ID", ""), person.get("Section", "")]
                    + [number_text(scores[student][a]) if a in scores[student] else "" for a in assignments])
    return rows, skipped


def export(fmt: str, path: Path | None = None, db_url: str | None = None, roster: Path | None = None,
           columns: dict[str, str] | None = None, assignments: list[str] | None = None) -> Export:
    """Write the gradebook import CSV of `fmt` (canvas or moodle) for `assignments` (default: every
    assignment with grades), each in the LMS column `columns` names or the roster has (canvas_columns,
    moodle_columns). Returns what was written, with the students left out because the LMS could not match
    them (no Canvas user id; no email or ID number for Moodle). ExportError, and nothing written, for an
    unknown or ungraded assignment, a roster of the wrong kind, Moodle without a roster, or an export
    that would match nobody."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    columns = dict(columns or {})
    sources = notebooks.sources()
    for assignment in list(assignments or []) + list(columns):
        check_assignment(assignment, sources)
    if fmt == "moodle" and roster is None:
        raise ExportError("Moodle's import matches students by email address or ID number, and a Moodle download "
                          f"holds neither: pass --roster with {ROSTER_HELP['moodle']}")
    header, people = load_roster(roster, fmt)
    scores, possible = gradebook_scores(db_url)
    if not possible:
        raise ExportError("the gradebook holds no grades yet: collect the submissions and run autograde first")
    chosen = sorted(dict.fromkeys(assignments)) if assignments else sorted(possible)
    for assignment in chosen + [a for a in columns if a not in chosen]:
        if assignment not in possible:
            raise ExportError(f"the gradebook holds no grades of {assignment} (graded: {', '.join(sorted(possible))})"
                              f": run autograde --assignment {assignment} first"
                              + ("" if assignment in chosen else ", or leave out its --column"))
    scores = {s: {a: v for a, v in by.items() if a in chosen} for s, by in scores.items()}
    scores = {s: by for s, by in scores.items() if by}
    make_columns, make_rows = (canvas_columns, canvas_rows) if fmt == "canvas" else (moodle_columns, moodle_rows)
    cols = make_columns(chosen, people, columns, header)
    seen: dict[str, str] = {}
    for column in cols:
        key = column_id(column.header) if fmt == "canvas" and column_id(column.header) else column.header
        if key in seen:  # the LMS would read one column for both (Canvas: the first with that id)
            raise ExportError(f"{seen[key]} and {column.assignment} would both go to the column {column.header!r}: "
                              "give each its own --column")
        seen[key] = column.assignment
    rows, skipped = make_rows(scores, possible, identities(), people, cols)
    students = len(rows) - (2 if fmt == "canvas" else 1)
    if students == 0:
        if fmt == "canvas":
            why = ("none has a Canvas user id: collect the Canvas download (its file names carry the ids), or pass "
                   f"--roster with {ROSTER_HELP['canvas']}")
        else:
            why = (f"the roster {roster} names none of them with an email address or ID number (students are "
                   "matched by their full name, as the Moodle download writes it)")
        names = ", ".join(skipped[:10]) + (", ..." if len(skipped) > 10 else "")
        raise ExportError(f"no student could be matched for {fmt.capitalize()}'s import, nothing written: of "
                          f"{len(skipped)} graded ({names}), {why}")
    path = Path(path or home() / f"grades-{fmt}.csv")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_safe_csv(path, rows)  # no cell a spreadsheet runs (a Moodle folder named =HYPERLINK(...))
    return Export(path, students, skipped, cols)


from autograder.classroom.lms_moodle import moodle_rows  # noqa: E402 - it reads this module's names
