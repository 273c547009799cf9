"""A loop in one answer cell costs what a raise in that cell costs (issue 35): each answer cell has its own time
limit in the learner's template, a cell past it fails like a raise (the names it defined first are kept) and the
next cells run; the judge's own timer still bounds all the answers (tests/more/test_faults.py: an answer that
escapes its cell's timer). Through the real sandbox, on notebook 15's five independent exercises."""

from __future__ import annotations

import nbformat
import pytest

from autograder.engine import grading, notebooks
from autograder.engine.sandbox import Limits
from autograder.maintain import samples

pytestmark = pytest.mark.xdist_group("redteam")

ASSIGNMENT = "15_debugging"
LIMITS = Limits(seconds_per_test=15)
REFERENCE = samples.reference_answers(next(s for s in notebooks.sources() if s.assignment == ASSIGNMENT))
LOOP = "while True:\n    pass\n"
RAISE = "raise RuntimeError('stopped here')\n"


@pytest.fixture(scope="module")
def sandbox():
    with grading.new_sandbox() as box:
        yield box


def score(sandbox, changed: dict) -> tuple[float, dict]:
    answers = {cell.removeprefix("answer_"): source for cell, source in {**REFERENCE, **changed}.items()}
    _, nb = samples.student_notebook(ASSIGNMENT, answers)
    report, _ = grading.grade_text(nbformat.writes(nb), f"{ASSIGNMENT}.ipynb", sandbox, limits=LIMITS)
    return report.score, {c.grade_id: (c.status, c.feedback) for c in report.cells if c.status != "passed"}


def test_a_loop_at_the_end_of_the_first_answer_cell_costs_what_a_raise_there_costs(sandbox):
    first = next(iter(REFERENCE))
    raised, _ = score(sandbox, {first: REFERENCE[first] + "\n" + RAISE})
    looped, lost = score(sandbox, {first: REFERENCE[first] + "\n" + LOOP})
    assert looped == raised > 0, lost


def test_loops_in_two_answer_cells_cost_those_cells_names_only(sandbox):
    """Each loop ends its own cell (its names never defined); the other three exercises keep their points, and
    the two lost say which cell ran out of time."""
    two = list(REFERENCE)[:2]
    raised, _ = score(sandbox, {cell: RAISE + REFERENCE[cell] for cell in two})
    looped, lost = score(sandbox, {cell: LOOP + REFERENCE[cell] for cell in two})
    assert looped == raised > 0, lost
    assert lost and all(grade_id.split("_")[1] in {c.removeprefix("answer_") for c in two} for grade_id in lost)
    assert all("time limit exceeded in this cell" in feedback for _, feedback in lost.values()), lost
