"""What a Gradescope autograder is built with and runs by: gradescope.json's keys and their defaults, who sees
which test when, the isolation levels it may use, and where things are in the zip. Both sides read it: the
zip's writer (gradescope/autograder_zip.py) and what run_autograder runs (gradescope)."""

from __future__ import annotations

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
# Most shown first: a summary of several tests is shown no earlier than the last of them.
SHOWN_ORDER = ("visible", "after_due_date", "after_published", "hidden")
WHEN_SHOWN = {"after_due_date": "after the due date", "after_published": "when your instructor publishes the grades",
              "hidden": "to your instructor only"}
# Test kinds: a graded cell whose hidden block is empty is a "visible" check (students run it in their
# notebook anyway); a cell with a hidden block is "hidden". "stdout" is run_autograder's own output.
DEFAULT_VISIBILITY = {"visible": "visible", "hidden": "after_published", "stdout": "hidden"}
CONFIG = "gradescope.json"
ROOT_VARIABLE = "AUTOGRADER_ROOT"
PACKAGE_SKIP = {"__pycache__", "build"}  # build: the C++ kernel is compiled by setup.sh, for its own torch
GRADING_DIR = "grading"             # in the zip: the grading copies of the notebooks, and course.json
COURSE_INDEX = "course.json"
# Isolation on Gradescope: the levels a grading may use, strongest first ("none" never: there the learner's
# code reads the autograder's files and is root). A level counts as reached only with its layers in force.
LEVELS = ("full", "no-namespaces")
DEFAULT_WEAKEST = "no-namespaces"
# Gradescope's own limit is 10 minutes by default (on half a CPU): the budget ends grading before it, so
# a results.json is always written.
GRADESCOPE_TIMEOUT_SECONDS = 600
GRADESCOPE_LONGEST_TIMEOUT_SECONDS = 2400  # what its assignment settings allow at most
DEFAULT_BUDGET_SECONDS = 480
MAX_CANDIDATES = 20  # notebooks of one upload read (each under the size cap): a student uploads one or two

PENDING = ("Not graded yet: the autograder was still grading when this was written. If you see this, the run "
           "was cut off before this test (by Gradescope's time limit?): it is not your mistake, tell your "
           "instructor.")


class GradingUnavailable(RuntimeError):
    """No isolation level the instructor allows can start here: nothing is graded."""


def parse_visibility(items: list[str] | None) -> dict:
    """`["hidden=visible", ...]` -> the full visibility table; ValueError for an unknown kind or value."""
    table = dict(DEFAULT_VISIBILITY)
    for item in items or []:
        kind, sep, value = item.partition("=")
        if not sep or kind not in DEFAULT_VISIBILITY or value not in VISIBILITIES:
            raise ValueError(f"--visibility {item!r}: expected KIND=VALUE with KIND one of "
                             f"{', '.join(DEFAULT_VISIBILITY)} and VALUE one of {', '.join(VISIBILITIES)}")
        table[kind] = value
    return table
