"""The entries of a Gradescope results.json: one test per graded cell, a summary per notebook, the top level,
every text plain text; and its atomic write."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from autograder.classroom.gradescope.settings import SHOWN_ORDER


def test_kind(cell_source: str) -> str:
    from autograder.engine.notebooks import HIDDEN

    return "hidden" if HIDDEN.search(cell_source) else "visible"


def kinds_of(source) -> dict[str, str]:
    """Each test cell's kind ("hidden": it has hidden tests, else "visible"), from the source's own cells."""
    from autograder.engine.notebooks import nbgrader_meta

    return {nbgrader_meta(c)["grade_id"]: test_kind(c.source) for c in source.cells("test")}


def most_hidden(visibilities) -> str:
    return max(visibilities, key=SHOWN_ORDER.index, default="visible")


def tests_of(report, source, visibility: dict, prefix: str = "", limits=None) -> list[dict]:
    """One Gradescope test per graded cell. A test the grader did not run because earlier tests ran out
    of time (the answers' process was restarted too often) says so, and names the loop."""
    kinds = kinds_of(source)
    tests, slow = [], []
    for number, cell in enumerate(report.cells, 1):
        status = "passed" if cell.status == "passed" else "failed"
        output = cell.feedback if cell.status in ("passed", "failed") else f"{cell.status}: {cell.feedback}"
        if cell.status == "timeout":
            slow.append(cell.grade_id)
            if limits is not None:
                output += f" (the time limit is {round(limits.seconds_per_test, 1):g} s a test here)"
        elif cell.mistake == "learner-stalled" and slow:
            seconds = f" ({round(limits.seconds_per_test, 1):g} s each)" if limits is not None else ""
            output = (f"not run: {', '.join(slow)} ran out of time{seconds}, so the grader stopped running your "
                      "answers before this test. Is there an infinite loop, or work far larger than the exercise "
                      "needs, in a method those tests call? Fix that first: this test then runs too.")
        tests.append({"name": f"{prefix}{cell.grade_id}", "name_format": "text", "number": f"{prefix}{number}",
                      "score": float(cell.points), "max_score": float(cell.max_points), "status": status,
                      "output": output, "output_format": "text",
                      "visibility": visibility[kinds.get(cell.grade_id, "hidden")]})
    return tests


def zero_tests(source, visibility: dict, reason: str, prefix: str = "") -> list[dict]:
    """Every test of `source` at zero, each saying why (so Gradescope shows the right maximum)."""
    from autograder.engine import grading

    _, tests = grading.plan(source, None)
    kinds = kinds_of(source)  # plan's test text has its hidden-test markers stripped: read the cells
    return [{"name": f"{prefix}{gid}", "name_format": "text", "number": f"{prefix}{number}", "score": 0.0,
             "max_score": float(points), "status": "failed", "output": reason, "output_format": "text",
             "visibility": visibility[kinds.get(gid, "hidden")]}
            for number, (gid, points, _) in enumerate(tests, 1)]


def summary_test(name: str, text: str, passed: bool, tests: list[dict]) -> dict:
    """An informational entry (no score): a notebook's score and the grader's notes, shown no earlier than
    the most hidden of the tests it describes."""
    return {"name": name, "name_format": "text", "status": "passed" if passed else "failed", "output": text,
            "output_format": "text", "visibility": most_hidden(t["visibility"] for t in tests)}


def results_json(score: float, output: str, tests: list[dict], visibility: dict, **extra) -> dict:
    return {"score": float(score), "output": output, "output_format": "text", "test_output_format": "text",
            "test_name_format": "text", "visibility": "visible", "stdout_visibility": visibility["stdout"],
            "tests": tests, **extra}


def failure(why: str, sources: list, visibility: dict, prefix_of=lambda s: "", **extra) -> dict:
    tests = [t for s in sources for t in zero_tests(s, visibility, why, prefix_of(s))] if len(sources) == 1 else []
    return results_json(0.0, why, tests, visibility, **extra)


def crashed(error: BaseException) -> dict:
    return results_json(0.0, "The grader failed on this submission (" + type(error).__name__ + "), so it scores 0 "
                        "for now. This is not your mistake: tell your instructor, who can see the details in the "
                        "autograder's log and rerun it.", [], {"stdout": "hidden"})


def write(path: Path, data: dict) -> None:
    """`data` as Gradescope's results.json, atomically, once it passes Gradescope's schema; a results.json that
    does not (a bug of ours) is replaced by `crashed`'s, with the problems in the autograder's log."""
    import sys

    from autograder.classroom.gradescope.schema import problems

    found = problems(data)
    if found:
        print("results.json would break Gradescope's schema, so the student is told the grader failed: "
              + "; ".join(found[:10]), file=sys.stderr)
        data = crashed(ValueError("invalid results.json"))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".results-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)
