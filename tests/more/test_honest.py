"""Honest students are never flagged: correct answers in the styles real students write score full marks on
every exercise, through the real grader. Two kinds: every reference answer wrapped in the habits of a real
notebook (a magic, a plot, debugging prints, a helper, a try-out line that works), and hand-written answers in
tests/honest/<Exercise>/ that reach the right result another way (built-ins such as sum_to_size, autograd
inside backward, set_materialize_grads)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.engine import grading, notebooks
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

pytestmark = pytest.mark.xdist_group("honest")

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
HANDWRITTEN = sorted((Path(__file__).parent.parent / "honest").glob("*/*.py"))

HABITS_BEFORE = ("%matplotlib inline\nimport matplotlib.pyplot as plt\nprint('working on it')\n\n"
                 "def _show(value):\n    print(type(value).__name__)\n    return value\n\n")
HABITS_AFTER = "\n\n_show(42)\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.close('all')\nprint('done')\n"


def grade_answers(sandbox, assignment: str, answers: dict):
    _, nb = samples.student_notebook(assignment, answers)
    report, _ = grading.grade_text(nbformat.writes(nb), f"{assignment}.ipynb", sandbox,
                                   limits=Limits(seconds_per_test=120))
    return report


@pytest.mark.parametrize("assignment", sorted(SOURCES))
def test_reference_answers_with_notebook_habits_score_full_marks(assignment, sandbox):
    source = SOURCES[assignment]
    answers = {gid: HABITS_BEFORE + text + HABITS_AFTER for gid, text in samples.reference_answers(source).items()}
    report = grade_answers(sandbox, assignment, answers)
    assert report.score == report.max_score, [(c.grade_id, c.feedback) for c in report.cells if c.status != "passed"]
    assert not report.notes, report.notes


@pytest.mark.parametrize("path", HANDWRITTEN, ids=[f"{p.parent.name}/{p.stem}" for p in HANDWRITTEN])
def test_correct_answers_written_another_way_score_full_marks(path, sandbox):
    exercise = path.parent.name
    source = EXERCISE_TO_SOURCE[exercise]
    report = grade_answers(sandbox, source.assignment, {exercise: path.read_text()})
    own = [c for c in report.cells if c.grade_id.startswith(f"test_{exercise}_")]
    assert own and all(c.status == "passed" for c in own), [(c.grade_id, c.feedback) for c in own]
