"""Validity through the real grader (judge and learner processes): the reference answers score full marks, and every
zoo entry scores through the sandbox what its header says (`# fails:`, `# score:`), which tests/core/test_zoo_ledger.py
checks in process: the two roads agree with the header, so with each other. The ledger's grading is shared
(tests/zoo_ledger.py); an entry is graded here on its own exercise's tests (the in-process tier also grades the rest
of its notebook)."""

import pytest

from autograder.engine import grading, notebooks
from autograder.engine.sandbox import Limits
from zoo_ledger import ENTRIES, EXERCISE_TO_SOURCE, grade, verdict

SOURCES = {s.assignment: s for s in notebooks.sources()}


def test_zoo_is_big_enough():
    per_exercise = {}
    for e in ENTRIES:
        per_exercise[e.exercise] = per_exercise.get(e.exercise, 0) + 1
    assert len(ENTRIES) >= 40
    assert set(per_exercise) <= set(EXERCISE_TO_SOURCE), "a zoo folder names no exercise"
    thin = {k: v for k, v in per_exercise.items() if v < 3}
    assert not thin, f"fewer than three wrong answers: {thin}"
    assert all(e.mistake and e.feedback for e in ENTRIES), "each entry says its mistake and expected feedback"


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.exercise}/{e.name}" for e in ENTRIES])
def test_the_entry_scores_its_header_through_the_sandbox(entry, sandbox):
    graded = grade(entry, sandbox, Limits(seconds_per_test=90), own_only=True)
    problems = verdict(entry, graded)
    assert not problems, (f"{entry.path.name} through the sandbox: " + "; ".join(problems)
                          + f"; lost { {t: r[3] for t, r in graded.lost(entry.exercise).items()} }")


@pytest.mark.parametrize("assignment", sorted(SOURCES))
def test_reference_scores_full_marks(assignment, sandbox):
    report = grading.reference_report(SOURCES[assignment], sandbox, seed=0, limits=Limits(seconds_per_test=90))
    failing = [(c.grade_id, c.feedback) for c in report.cells if c.status != "passed"]
    assert not failing and report.max_score > 0
