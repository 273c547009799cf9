"""Validity through the real grader (judge and learner processes): the reference answers score full marks,
and one realistic wrong answer per exercise loses points with feedback that names its mistake. Every zoo
entry is checked in-process by the fast tier (tests/core/test_fast.py); this is the sandboxed smoke test."""

import pytest

from autograder.engine import grading, notebooks
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

ENTRIES = samples.zoo()
SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}


def cells_about(source, exercise):
    """The test cells about one exercise (test_<Exercise>_...), or all of the notebook's if none is named."""
    _, tests = grading.plan(source, None)
    own = [t for t in tests if t[0].startswith(f"test_{exercise}_")]
    return own or tests


def test_zoo_is_big_enough():
    per_exercise = {}
    for e in ENTRIES:
        per_exercise[e.exercise] = per_exercise.get(e.exercise, 0) + 1
    assert len(ENTRIES) >= 40
    assert set(per_exercise) <= set(EXERCISE_TO_SOURCE), "a zoo folder names no exercise"
    thin = {k: v for k, v in per_exercise.items() if v < 3}
    assert not thin, f"fewer than three wrong answers: {thin}"
    assert all(e.mistake and e.feedback for e in ENTRIES), "each entry says its mistake and expected feedback"


def _smoke_entries():
    """One realistic wrong answer per exercise (the stub aside): the sandboxed path's smoke test. Every
    entry runs in-process in the fast tier (tests/core/test_fast.py)."""
    chosen = {}
    for entry in ENTRIES:
        if entry.name != "stub" and entry.exercise not in chosen:
            chosen[entry.exercise] = entry
    return list(chosen.values())


SMOKE = _smoke_entries()


@pytest.mark.parametrize("entry", SMOKE, ids=[f"{e.exercise}/{e.name}" for e in SMOKE])
def test_wrong_answer_loses_points_with_named_feedback(entry, sandbox):
    source = EXERCISE_TO_SOURCE[entry.exercise]
    _, nb = samples.student_notebook(source.assignment, {entry.exercise: entry.source})
    before, _ = grading.plan(source, nb)
    tests = cells_about(source, entry.exercise)
    results = grading.run_tests(sandbox, before, tests, seed=7, limits=Limits(seconds_per_test=90))
    lost = [r for r in results if r.status != "passed"]
    assert lost, f"{entry.path.name} ({entry.mistake}) got full marks"
    feedback = " | ".join(r.feedback for r in lost)
    assert entry.feedback.lower() in feedback.lower(), (
        f"{entry.path.name}: feedback does not name the mistake ({entry.feedback!r}): {feedback}")


@pytest.mark.parametrize("assignment", sorted(SOURCES))
def test_reference_scores_full_marks(assignment, sandbox):
    report = grading.reference_report(SOURCES[assignment], sandbox, seed=0, limits=Limits(seconds_per_test=90))
    failing = [(c.grade_id, c.feedback) for c in report.cells if c.status != "passed"]
    assert not failing and report.max_score > 0


# Entries whose check can take two roads (the call crosses to the learner's process, or runs in the judge on
# layers the judge built): the sandbox must give each the score it declares, which the in-process tier checks on
# the other road. The reentrant checkpoint once passed `values` through the sandbox and failed it in-process.
TWO_ROADS = [e for e in ENTRIES if (e.exercise, e.name) in {("checkpointed_mlp", "reentrant"),
                                                             ("checkpointed_mlp", "use_reentrant_omitted")}]


@pytest.mark.parametrize("entry", TWO_ROADS, ids=[f"{e.exercise}/{e.name}" for e in TWO_ROADS])
def test_an_entry_scores_the_same_through_the_sandbox(entry, sandbox):
    source = EXERCISE_TO_SOURCE[entry.exercise]
    _, nb = samples.student_notebook(source.assignment, {entry.exercise: entry.source})
    before, _ = grading.plan(source, nb)
    tests = cells_about(source, entry.exercise)
    results = grading.run_tests(sandbox, before, tests, seed=7, limits=Limits(seconds_per_test=90))
    failed = {r.grade_id.removeprefix(f"test_{entry.exercise}_") for r in results if r.status != "passed"}
    declared = None
    for line in entry.source.splitlines():
        if line.startswith("# fails:"):
            declared = set(line.removeprefix("# fails:").split())
    assert len(TWO_ROADS) == 2 and failed == declared, (entry.name, failed, declared)
