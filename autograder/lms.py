"""Grades back into the LMS the submissions came from: Canvas's and Moodle's gradebook import CSVs.

`collect` names students by what their LMS download says (classroom.origin_of); it also keeps here, in
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
import json
import re
import tempfile
import warnings
import zipfile
from pathlib import Path

from autograder import classroom, grading, notebooks
from autograder.notebooks import NotebookError

IDENTITIES = "lms-students.json"
FORMATS = ("canvas", "moodle")
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = ["First name", "Last name", "ID number", "Email address"]


def identities_path() -> Path:
    return classroom.home() / IDENTITIES


def identities() -> dict:
    try:
        data = json.loads(identities_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# -------------------------------------------------------------------------------------------- collect

def collect(source: Path, assignment: str | None = None) -> list:
    """classroom.collect, then record the LMS identities of the students it collected."""
    collected = classroom.collect(source, assignment)
    try:
        record_identities(Path(source), collected)
    except (OSError, ValueError, zipfile.BadZipFile) as error:  # the submissions are in; only the ids are not
        warnings.warn(f"{source}: LMS ids not recorded ({error}); export --format canvas|moodle needs --roster",
                      stacklevel=2)
    return collected


def _files(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*.ipynb"))
            if "__MACOSX" not in p.parts and ".ipynb_checkpoints" not in p.parts and p.is_file()]


def record_identities(source: Path, collected: list) -> dict:
    """Read the download again for what collect's student ids leave out (the Canvas user id, the Moodle
    name and participant ids), for the students collect took, and merge it into lms-students.json."""
    students = {s.student for s in collected}
    data = identities()
    sources = notebooks.sources()
    with tempfile.TemporaryDirectory() as tmp:
        root = source
        if source.is_file():
            with zipfile.ZipFile(source) as archive:
                archive.extractall(tmp)  # collect has checked every member's path
            root = Path(tmp)
        files = _files(root)
        origins = {p: classroom.origin_of(p.relative_to(root), root) for p in files}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # collect has warned already
            classroom._tell_apart(origins)
        for path, origin in origins.items():
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
            name = next((m["name"] for part in path.relative_to(root).parts
                         if (m := classroom._MOODLE.match(Path(part).stem if part == path.name else part))), None)
            if name and not origin.student.startswith("participant-"):
                entry["name"] = name
            try:
                assignment = notebooks.match_source(notebooks.read(path), path.name, sources).assignment
            except NotebookError:
                continue
            entry.setdefault("moodle_participants", {})[assignment] = origin.key
    if data:
        classroom._atomic_write(identities_path(), json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


# --------------------------------------------------------------------------------------------- export

def gradebook_scores(db_url: str | None = None) -> tuple[dict, dict]:
    """({student: {assignment: score}}, {assignment: points possible}) from the gradebook."""
    rows = classroom.GradebookWriter(db_url).scores()
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


def read_roster(path: Path | None) -> list[dict]:
    if path is None:
        return []
    with open(path, newline="", encoding="utf-8-sig") as f:
        return [{(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(f)]


def _number(value: float) -> str:
    return f"{value:g}"


def _headers(assignments: list[str], roster: list[dict], pattern: str) -> list[str]:
    """An assignment's column is the roster's own header for it when there is one (Canvas: `01_square
    (123456)`, Moodle: `Assignment: 01_square (Real)`), so the import updates it instead of adding one."""
    existing = list(roster[0]) if roster else []
    out = []
    for assignment in assignments:
        found = next((h for h in existing if (m := re.fullmatch(pattern, h)) and m["name"] == assignment), None)
        out.append(found or assignment)
    return out


def squashed(name: str) -> str:
    """Canvas's name in its download: the sortable name, lowercase, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", classroom.name_id(name))


def canvas_rows(scores: dict, possible: dict, ids: dict, roster: list[dict]) -> tuple[list[list[str]], list[str]]:
    assignments = sorted(possible)
    by_id = {r.get("ID", ""): r for r in roster if r.get("ID", "").isdigit()}
    by_name = {squashed(r.get("Student", "")): r for r in by_id.values()}
    rows = [CANVAS_COLUMNS + _headers(assignments, roster, r"(?P<name>.+) \(\d+\)"),
            ["Points Possible", "", "", "", ""] + [_number(possible[a]) for a in assignments]]
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
                    + [_number(scores[student][a]) if a in scores[student] else "" for a in assignments])
    return rows, skipped


def _split(name: str) -> tuple[str, str]:
    first, _, last = name.strip().partition(" ")
    return first, last


def moodle_rows(scores: dict, possible: dict, ids: dict, roster: list[dict]) -> tuple[list[list[str]], list[str]]:
    assignments = sorted(possible)
    by_name: dict[str, list[dict]] = {}
    for r in roster:
        full = r.get("Full name") or f"{r.get('First name', '')} {r.get('Last name', '')}"
        by_name.setdefault(classroom.name_id(full), []).append(r)
    rows = [MOODLE_COLUMNS + _headers(assignments, roster, r"[^:]+: (?P<name>.+) \((?:Real|Percentage|Letter)\)")]
    skipped = []
    for student in sorted(scores):
        entry = ids.get(student, {})
        name = entry.get("name", "")
        matches = by_name.get(classroom.name_id(name) if name else student, [])
        person = matches[0] if len(matches) == 1 else {}
        if not (person.get("Email address") or person.get("ID number")):
            skipped.append(student)
            continue
        first, last = (person.get("First name", ""), person.get("Last name", "")) if person.get("First name") \
            else _split(name)
        rows.append([first, last, person.get("ID number", ""), person.get("Email address", "")]
                    + [_number(scores[student][a]) if a in scores[student] else "" for a in assignments])
    return rows, skipped


def export(fmt: str, path: Path | None = None, db_url: str | None = None,
           roster: Path | None = None) -> tuple[Path, int, list[str]]:
    """Write the gradebook import CSV of `fmt` (canvas or moodle). Returns the path, how many students it
    holds, and the students left out because the LMS could not match them (no Canvas user id; no email or
    ID number for Moodle)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    scores, possible = gradebook_scores(db_url)
    make = canvas_rows if fmt == "canvas" else moodle_rows
    rows, skipped = make(scores, possible, identities(), read_roster(roster))
    path = Path(path or classroom.home() / f"grades-{fmt}.csv")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    students = len(rows) - (2 if fmt == "canvas" else 1)
    return path, students, skipped
