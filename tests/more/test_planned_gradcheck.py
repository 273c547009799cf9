"""Requests planned (autograder/engine/sandbox/plans.py: gradcheck's fast mode) give what they give sent one at a
time, through the real sandbox: every test of every reference notebook and of a fixed
sample of the zoo and the honest answers is graded as graded, and again with the plans left out (the test cell first
puts `checks.common._planned` back to asking one request at a time, in the judge, on the same line so that
its line numbers stay), each time on a fresh learner's sandbox; the verdicts, points, feedback and mistake codes must
be the same, and the planned grading of a reference may only take fewer round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.engine import grading, notebooks
from autograder.engine.sandbox import Limits
from autograder.maintain import samples
from helpers import cells_about, sampled

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
HONEST = sorted((Path(__file__).parent.parent / "honest").glob("*/*.py"))
ALONE = ("import contextlib as _off, autograder.checks.common as _common; "
         "_common._planned = lambda *args, _none=_off.nullcontext: _none(); del _off, _common; ")


# Every reference notebook; of the zoo and the honest answers, a fixed sample (each exercise's first, then every
# SAMPLE_EVERY-th): the plans are the engine's, the same for every exercise, and tests/core/test_plans.py meets the
# kinds of answer (wrong, hostile, unusual) one by one. (All 416 took several minutes of test-more.)
SAMPLE_EVERY = 8

# The reference notebooks none of whose tests reaches a fast-mode gradcheck (nothing to compare there).
WITHOUT_GRADCHECK = {"00_when_to_write_one", "06_straight_through"}


def _sampled(entries: list, exercise_of, every: int = SAMPLE_EVERY) -> list:
    return sampled(entries, exercise_of, every)


def _cases() -> list:
    cases = [pytest.param(SOURCES[a], None, None, id=f"reference/{a}") for a in sorted(SOURCES)]
    cases += [pytest.param(EXERCISE_TO_SOURCE[e.exercise], e.exercise, e.source, id=f"zoo/{e.exercise}/{e.name}")
              for e in _sampled(list(samples.zoo()), lambda e: e.exercise)]
    cases += [pytest.param(EXERCISE_TO_SOURCE[p.parent.name], p.parent.name, p.read_text(),
                           id=f"honest/{p.parent.name}/{p.stem}") for p in _sampled(HONEST, lambda p: p.parent.name)]
    return cases


def alone(source: str) -> str:
    """The test cell, its gradchecks asking one request at a time (its first line keeps its number)."""
    try:
        compile(ALONE + source, "<test>", "exec")
        return ALONE + source
    except SyntaxError:  # a first line that opens a block: a line of its own (every line then one further)
        return ALONE.rstrip("; ") + "\n" + source


def _seen(result) -> tuple:
    return result.status, result.points, result.feedback, result.mistake


@pytest.mark.slow
@pytest.mark.parametrize("source, exercise, answer", _cases())
def test_planned_gradchecks_grade_as_single_requests_do(source, exercise, answer, sandbox):
    if answer is None:
        before, tests = grading.plan(source, None)
    else:
        _, nb = samples.student_notebook(source.assignment, {exercise: answer})
        before, _ = grading.plan(source, nb)
        tests = cells_about(source, exercise)
    limits = Limits(seconds_per_test=90)
    planned = grading.run_tests(sandbox, before, tests, 7, limits)
    single = grading.run_tests(sandbox, before, [(g, points, alone(s)) for g, points, s in tests], 7, limits)
    differ = [(p.grade_id, _seen(p), _seen(s)) for p, s in zip(planned, single) if _seen(p) != _seen(s)]
    assert not differ, differ
    trips = [(p.grade_id, p.round_trips, s.round_trips) for p, s in zip(planned, single)]
    if answer is None:  # (a wrong answer's table may cost more: a case that fails mid-plan runs live again)
        assert not [t for t in trips if t[1] > t[2]], trips
    if answer is None and source.assignment not in WITHOUT_GRADCHECK:  # the plans were taken: fewer round trips
        assert sum(t[1] for t in trips) < sum(t[2] for t in trips), trips
