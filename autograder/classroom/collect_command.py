"""`python -m autograder collect`: a download into submitted/, saying what was refused and why, which of a student's
copies is graded, and which submissions are late."""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.engine.notebooks import NotebookError


def collect(args) -> int:
    """Exit 0: every notebook of the download collected; 1: some were refused (each named, with why); 2: none
    could be read at all."""
    from autograder.classroom import lateness, layouts, lms, submissions

    import warnings

    log = layouts.CollectLog()
    try:
        due = lateness.parse_due(getattr(args, "due", None))
        with warnings.catch_warnings(record=True) as notes:  # said as sentences, without Python's source line
            warnings.simplefilter("always")
            collected = lms.collect(Path(args.source), args.assignment, log, due)  # layouts.collect, and ids
    except (FileNotFoundError, NotebookError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note.message}", file=sys.stderr)
    students = sorted({s.student for s in collected})
    print(f"collected {len(collected)} notebooks from {len(students)} students into {submissions.submitted_dir()}")
    late = sorted(s.key for s in collected if lateness.read(s.path.parent).get("late"))
    if late:
        print(f"  late ({len(late)}): {', '.join(late)}")
    if log.chosen:
        print("  of several copies, the one graded:")
        print("\n".join(f"    {line}" for line in log.chosen))
    for sentence in log.refused:
        print(f"  left out: {sentence}", file=sys.stderr)
    return 1 if log.refused else 0


