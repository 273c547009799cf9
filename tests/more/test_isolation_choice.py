"""The answer never chooses its isolation level (issue 36): the level is the isolation probe's, measured before any
answer runs; a submission is graded once, at that level, whatever its answers do; a value the judge cannot decode
costs the name it is bound to, never every test."""

from __future__ import annotations

import nbformat
import pytest

from autograder.classroom import gradescope
from autograder.engine import grading
from autograder.engine.sandbox import Isolation
from autograder.maintain import samples

from test_redteam import LIMITS, WRONG, attack_file, attack_source
from helpers import run_cli
from test_gradescope_units import FULL, fake_levels, fallback, square_source  # noqa: F401  (fixture)


def square_notebook(answer: str) -> str:
    _, nb = samples.student_notebook("01_square", {"Square": answer})
    return nbformat.writes(nb)


def test_an_answer_that_breaks_the_grader_at_full_is_not_regraded_weaker(fake_levels, monkeypatch):  # noqa: F811
    """A report whose tests are grader errors stays the report of the level the probe chose."""
    fake_levels["layers"].update({"full": FULL, "no-namespaces": dict(FULL, namespaces=False)})

    def broken(text, name, runner, seed, limits, candidates):
        fake_levels["graded"].append(limits.isolation)
        cell = grading.CellResult("test_Square_values", 0, 1, "error", "the grader failed", "grader-error")
        return grading.Report(name, "01_square", 0, 3, [cell], isolation=Isolation.from_wire(FULL)), None

    monkeypatch.setattr(grading, "grade_text", broken)
    report, level, failures = fallback(fake_levels, "{}", "01_square.ipynb", square_source(), {"seed": 0})
    assert level == "full" and fake_levels["graded"] == ["full"] and failures == []
    assert report.score == 0


def test_an_undecodable_name_at_full_neither_fails_every_test_nor_buys_a_weaker_level():
    """The attack binds torch.uint16 only under full isolation and answers right only below it: graded once, at
    full, it keeps the wrong Square's score (2/3), and its tests are verdicts, not grader errors."""
    source, _ = attack_source(attack_file("undecodable-name-chooses-the-level"))
    with grading.new_sandbox() as sandbox:
        if not sandbox.probe(LIMITS).isolation.namespaces:
            pytest.skip("no namespaces here: the attack's level switch cannot be shown")
        wrong, _ = grading.grade_text(square_notebook(WRONG["wrong"]), "01_square.ipynb", sandbox, 0, LIMITS)
    with gradescope.new_sandbox() as runner:
        report, level, _ = gradescope.grade_with_fallback(runner, square_notebook(source), "01_square.ipynb",
                                                          square_source(), {"seed": 0,
                                                                            "limits": {"seconds_per_test": 90}})
    assert level == "full", level
    assert not [c for c in report.cells if c.mistake == "grader-error"], [(c.grade_id, c.feedback) for c in report.cells]
    assert report.score <= 2.0, [(c.grade_id, c.status, c.feedback) for c in report.cells]
    assert report.score == wrong.score


@pytest.mark.parametrize("level", ["full", "no-namespaces"])
def test_the_zips_own_try_grades_a_reference_notebook_at_every_level_it_allows(level):
    """`gradescope --test` unpacks into a folder every uid can traverse, as Gradescope's /autograder is: under a root
    grader the learner's unallocated uid imports the course's package lazily from there (notebook 15's setup)."""
    from autograder import paths

    answer = paths.SOLUTIONS / "15_debugging" / "15_debugging.ipynb"
    tried = run_cli("gradescope", "--assignment", "15_debugging", "--isolation", level, "--weakest-isolation", level,
                    "--test", str(answer))
    assert tried.returncode == 0, tried.stderr
    assert "results.json: score 20 / 20" in tried.stdout, tried.stdout[:3000]
