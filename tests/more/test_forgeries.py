"""Answers written to pass the grader's calls rather than to do what the exercise asks. Each one either tells the
grader's requests from real use (it takes another path when its input is a torch.func wrapper, or a non-leaf), or
hides what it keeps for backward from the grader's measurement (saved-tensor hooks of its own, which win over the
grader's; a tensor in a list or a dict on ctx). The answers are zoo entries (tests/zoo/<Exercise>/, whose header
names the feedback and the mistake code); here each is pinned to the tests it must lose, the mistake codes they
report, and the points it keeps. The scores the same answers got before the checks observed these things
themselves are in SCORE_BEFORE: every one of them was higher.

Each runs in-process (the fast tier) and through the real grader (judge and learner)."""

from __future__ import annotations

import pytest

from autograder.engine import grading, notebooks
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
ZOO = {(e.exercise, e.name): e for e in samples.zoo()}

# (exercise, zoo entry) -> (tests it must lose (grade_id suffixes), the points it keeps, out of the exercise's)
FORGERIES = {
    ("Cube", "detour_under_transforms"): ({"vmap", "grad"}, 3),
    ("Cube", "numpy_unless_wrapped"): ({"values", "gradgradcheck", "grad"}, 2),
    ("Softplus", "detour_under_transforms"): ({"jvp", "jacfwd"}, 4),
    ("Softplus", "jvp_only_for_wrappers"): ({"jvp", "jacfwd"}, 4),
    ("LogSumExp", "detour_under_transforms"): ({"vmap", "forward_mode"}, 8),
    ("Exp", "raises_for_nonleaf"): ({"saves_output", "inplace_output"}, 2),
    ("checkpointed_mlp", "own_saved_tensor_hooks"): ({"memory"}, 2),
    ("checkpointed_mlp", "hooks_keep_a_list"): ({"memory"}, 2),
    ("RecomputeSiLU", "sigmoid_in_a_list_on_ctx"): ({"saved"}, 3),
    ("LogSumExp", "softmax_in_a_dict_on_ctx"): ({"memory"}, 9),
}
# What the same answers scored when these facts were taken from the answer's own account of them.
SCORE_BEFORE = {
    ("Cube", "detour_under_transforms"): (5, 5), ("Softplus", "detour_under_transforms"): (6, 6),
    ("Softplus", "jvp_only_for_wrappers"): (6, 6), ("Cube", "numpy_unless_wrapped"): (3, 5),
    ("LogSumExp", "detour_under_transforms"): (10, 10), ("Exp", "raises_for_nonleaf"): (3, 5),
    ("checkpointed_mlp", "own_saved_tensor_hooks"): (4, 4), ("checkpointed_mlp", "hooks_keep_a_list"): (4, 4),
    ("RecomputeSiLU", "sigmoid_in_a_list_on_ctx"): (5, 5), ("LogSumExp", "softmax_in_a_dict_on_ctx"): (10, 10),
}
IDS = [f"{exercise}/{name}" for exercise, name in FORGERIES]


def header(entry, key: str) -> str:
    return samples.header(entry.source).get(key, "")


def score(entry, sandbox=None) -> tuple[float, float, dict]:
    """(points of the exercise's own tests, their maximum, {test suffix: (mistake code, feedback)} of those lost)."""
    exercise = entry.exercise
    source = EXERCISE_TO_SOURCE[exercise]
    _, nb = samples.student_notebook(source.assignment, {exercise: entry.source})
    before, tests = grading.plan(source, nb)
    tests = [t for t in tests if t[0].startswith(f"test_{exercise}_")]
    points = {grade_id: p for grade_id, p, _ in tests}
    if sandbox is None:
        from helpers import run_in_process

        outcomes = [(g, o.status, o.mistake, o.feedback) for g, o in run_in_process(before, tests)]
    else:
        results = grading.run_tests(sandbox, before, tests, seed=7, limits=Limits(seconds_per_test=90))
        outcomes = [(r.grade_id, r.status, r.mistake, r.feedback) for r in results]
    lost = {g.removeprefix(f"test_{exercise}_"): (code, feedback) for g, status, code, feedback in outcomes
            if status != "passed"}
    kept = sum(points[g] for g, status, _, _ in outcomes if status == "passed")
    return kept, sum(points.values()), lost


def check(key, kept, total, lost):
    must_lose, expected = FORGERIES[key]
    entry = ZOO[key]
    assert must_lose <= set(lost), f"{key}: kept {sorted(must_lose - set(lost))} ({lost})"
    phrase, code = header(entry, "feedback").lower(), header(entry, "code")
    assert any(phrase in feedback.lower() for _, feedback in lost.values()), lost
    assert code in {c for c, _ in lost.values()}, lost
    assert kept == expected, (kept, lost)
    before, before_total = SCORE_BEFORE[key]
    assert before_total == total and kept < before


@pytest.mark.fast
@pytest.mark.parametrize("key", list(FORGERIES), ids=IDS)
def test_forgery_loses_the_points_of_the_rule_it_dodges(key):
    check(key, *score(ZOO[key]))


@pytest.mark.parametrize("key", list(FORGERIES), ids=IDS)
def test_forgery_loses_the_points_through_the_grader(key, sandbox):
    check(key, *score(ZOO[key], sandbox))
