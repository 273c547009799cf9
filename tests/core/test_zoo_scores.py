"""One mistake costs its own points: a zoo entry with a `# score: got/max` header must score exactly that on its
exercise's tests (hidden cases included), in this process as the fast tier runs them. A wrong answer that loses
more than the points of the rule it breaks is a cascade, and fails here; one that loses fewer has slipped past a
test. Notebook 15's exercises grade the named cause and the fix on separate points, so each of their entries says
its score."""

from __future__ import annotations

import re

import pytest

from autograder.engine import grading, notebooks
from autograder.engine.runners import InProcessRunner
from autograder.engine.sandbox import Limits
from autograder.maintain import samples

pytestmark = pytest.mark.fast

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
ENTRIES = samples.zoo()
SCORE = re.compile(r"^# score: (\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)$", re.M)
# Every zoo entry of these notebooks must say its score.
SCORED_NOTEBOOKS = ("11_compile_and_export", "15_debugging", "16_custom_kernels")


def score_of(entry) -> tuple[float, float] | None:
    header = entry.source.split("\nclass ", 1)[0]
    m = SCORE.search(header)
    return (float(m.group(1)), float(m.group(2))) if m else None


SCORED = [e for e in ENTRIES if score_of(e) is not None]


def exercise_tests(source, exercise):
    before_plan, tests = grading.plan(source, None)
    return [t for t in tests if t[0].startswith(f"test_{exercise}_")]


def points(entry) -> tuple[float, float, list]:
    source = EXERCISE_TO_SOURCE[entry.exercise]
    _, nb = samples.student_notebook(source.assignment, {entry.exercise: entry.source})
    before, _ = grading.plan(source, nb)
    tests = exercise_tests(source, entry.exercise)
    results = grading.run_tests(InProcessRunner(), before, tests, 7, Limits())
    lost = [(r.grade_id, r.mistake) for r in results if r.status != "passed"]
    return sum(r.points for r in results), sum(r.max_points for r in results), lost


def test_every_entry_of_the_scored_notebooks_says_its_score():
    unscored = [f"{e.exercise}/{e.name}" for e in ENTRIES
                if EXERCISE_TO_SOURCE[e.exercise].assignment in SCORED_NOTEBOOKS and score_of(e) is None]
    assert not unscored, f"add a `# score: got/max` header to {unscored}"
    assert any(EXERCISE_TO_SOURCE[e.exercise].assignment == "15_debugging" for e in SCORED)


def test_the_header_is_read():
    entry = samples.ZooEntry("X", "x", None, "# mistake: m\n# score: 3/4\nclass X:\n    pass\n", "m", "")
    assert score_of(entry) == (3.0, 4.0)
    assert score_of(samples.ZooEntry("X", "x", None, "# mistake: m\nclass X:\n    pass\n", "m", "")) is None


@pytest.mark.parametrize("entry", SCORED, ids=[f"{e.exercise}/{e.name}" for e in SCORED])
def test_a_mistake_costs_its_own_points(entry):
    expected, maximum = score_of(entry)
    got, total, lost = points(entry)
    assert total == maximum, f"{entry.path.name}: the exercise has {total} points, the header says {maximum}"
    assert got == expected, f"{entry.path.name}: scored {got}/{total}, the header says {expected}; lost {lost}"
