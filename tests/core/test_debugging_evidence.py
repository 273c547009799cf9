"""Notebook 15: no point without the work it stands for. A cause's point and the point of a rule the broken
Function already keeps count only once the learner's Function no longer shows its bug report's symptom; so the five
broken Functions handed back unchanged, even with every cause guessed right, score nothing, while one real fix earns
its whole exercise and nothing more. And the unfilled release's tests all say "not implemented yet", each about its
own exercise (no NameError, no blame on another exercise's answer cell)."""

from __future__ import annotations

import re

import pytest

from autograder.checks import debugging
from autograder.engine import grading, notebooks
from autograder.maintain import samples
from helpers import run_in_process
from autograder.classroom.nbgrader_setup import CODE_STUB

pytestmark = pytest.mark.fast

SOURCE = next(s for s in notebooks.sources() if s.assignment == "15_debugging")
EXERCISES = debugging.EXERCISES


def released(source: str) -> str:
    """An answer cell as the release gives it: each solution block replaced by nbgrader's stub, indentation kept."""
    return re.sub(r"^([ \t]*)### BEGIN SOLUTION.*?### END SOLUTION[ \t]*$",
                  lambda m: "\n".join(m.group(1) + line for line in CODE_STUB.splitlines()), source, flags=re.M | re.S)


def unchanged(exercise: str, cause: str) -> str:
    """The broken Function of the setup cell handed back as the answer, with `cause` named."""
    return f'CAUSE_{exercise} = "{cause}"\n\n\nclass {exercise}(Broken{exercise}):\n    pass\n'


def graded(answers: dict) -> dict:
    _, nb = samples.student_notebook(SOURCE.assignment, answers)
    before, tests = grading.plan(SOURCE, nb)
    return dict(run_in_process(before, tests))


def by_exercise(results: dict) -> dict:
    return {e: sum(r.points for g, r in results.items() if g.startswith(f"test_{e}_")) for e in EXERCISES}


def test_the_broken_functions_with_every_cause_right_score_nothing():
    key = debugging.answer_key()
    results = graded({e: unchanged(e, key[e]["right"]) for e in EXERCISES})
    assert sum(r.points for r in results.values()) == 0, {g: (r.points, r.mistake) for g, r in results.items()}
    evidence = {g: r.mistake for g, r in results.items() if g.endswith("_cause")}
    assert set(evidence.values()) == {"symptom-remains"}, evidence


def test_one_fix_earns_its_own_exercise_and_no_other():
    key = debugging.answer_key()
    answers = {e: unchanged(e, key[e]["right"]) for e in EXERCISES}
    answers["Gaussian"] = samples.reference_answers(SOURCE)["answer_Gaussian"]
    assert by_exercise(graded(answers)) == {"ScaleShift": 0, "Sinc": 0, "LinearMap": 0, "Gaussian": 4, "DivideBy": 0}


def test_the_unfilled_release_says_not_implemented_yet_for_every_test():
    stubs = {notebooks.nbgrader_meta(c)["grade_id"].removeprefix("answer_"): released(c.source)
             for c in SOURCE.notebook.cells if notebooks.role(c) == "answer"}
    results = graded(stubs)
    assert len(results) == 15
    wrong = {g: r.feedback for g, r in results.items()
             if "not implemented yet" not in r.feedback or "answer cell" in r.feedback or r.points}
    assert not wrong, wrong
