"""`python -m autograder export`: nbgrader's grades CSV, or the gradebook import CSV of an LMS (classroom.lms)
and what the LMS will do with each of its columns, said so the instructor can check it before importing."""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.classroom import gradebook, lms, submissions


def export(args, say=None) -> int:
    """`export`: nbgrader's grades CSV, or with --format canvas|moodle the LMS's (export_lms). `say`, if given,
    prints progress lines."""
    if getattr(args, "format", "nbgrader") != "nbgrader":
        return export_lms(args, say)
    extra = [option for option, value in (("--roster", getattr(args, "roster", None)),
                                          ("--column", getattr(args, "column", None))) if value]
    if extra:
        print(f"error: {' and '.join(extra)} need --format canvas or --format moodle (nbgrader's CSV has no LMS "
              "columns)", file=sys.stderr)
        return 2
    if say:
        say(f"reading the gradebook ({args.db_url or 'SQLite in the grading folder'})")
    try:
        path = gradebook.export_csv(Path(args.output) if args.output else None, args.db_url,
                                   getattr(args, "assignment", None))
    except submissions.UnknownAssignment as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if say:
        say(f"wrote {_rows(path)} rows (one per student and assignment)")
    print(f"wrote {path}")
    return 0


def _rows(path: Path) -> int:
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        return max(sum(1 for _ in csv.reader(f)) - 1, 0)


def export_lms(args, say=None) -> int:
    """The LMS's import CSV, then what the LMS does with each of its columns. Exit 1 when a graded student of this
    LMS (or of none) is left out of it (each named, with why), 2 when nothing could be written."""
    if say:
        say(f"reading the gradebook ({args.db_url or 'SQLite in the grading folder'}) for a {args.format} import")
    try:
        done = lms.export(args.format, Path(args.output) if args.output else None, args.db_url,
                          Path(args.roster) if args.roster else None, lms.parse_columns(args.column),
                          args.assignment)
    except (OSError, ValueError) as error:  # lms.ExportError, an unknown assignment, an unreadable roster
        print(f"error: {error}", file=sys.stderr)
        return 2
    if say:
        say(f"wrote {done.students} students x {len(done.columns)} assignments")
    print(f"wrote {done.path} ({done.students} students, {args.format} gradebook import)")
    lms_name = args.format.capitalize()
    for column in done.columns:
        if column.matched_by == "id":
            note = f"updates Canvas assignment {lms.column_id(column.header)}"
        elif column.matched_by == "title":
            note = ("updates the Canvas assignment titled exactly so, or creates one: to name another, pass "
                    f"--column {column.assignment}=\"<title> (<id>)\" or --roster with Canvas's gradebook export")
        elif column.matched_by == "new":
            note = ("the roster has no column for it, so Canvas creates a new assignment: to update one, pass "
                    f"--column {column.assignment}=\"<title> (<id>)\"")
        else:
            note = f"map it to its grade item in {lms_name}'s import if it is not mapped already"
        print(f"  {column.assignment} -> \"{column.header}\": {note}")
    ids = lms.identities()

    def student_of(entry: str) -> str:  # Moodle's entries are "student (name): why"
        return entry.split(" (")[0].split(":")[0]

    # Students collect took from the other LMS are not this import's to hold: listed, but no failure.
    missed = [e for e in done.skipped if ids.get(student_of(e), {}).get("lms") in (None, args.format)]
    if done.skipped and args.format == "canvas":
        hint = "" if args.roster else " (pass --roster with Canvas's own gradebook export)"
        print(f"  left out, without a Canvas user id{hint}: {', '.join(done.skipped)}")
    elif done.skipped:
        print(f"  left out ({len(done.skipped)}):")
        for line in done.skipped:
            print(f"    {line}")
    return 1 if missed else 0  # the import would leave one of its students' grade out: the instructor must see it
