"""The grading pipeline, one step at a time (engine/grading.py PIPELINE): each step reads what the earlier ones
left in the Grading and adds its own part; the runner is a stub, so these are units."""

from __future__ import annotations

import pytest

from autograder.engine import grading, notebooks
from autograder.engine.grading import CellResult, Grading
from autograder.engine.sandbox import Graded, Isolation, Outcome, Runner

SOURCE = next(s for s in notebooks.sources() if s.assignment == "01_square")
STRONG = Isolation(level="full", namespaces=True, read_only_root=True, landlock=7, seccomp=True)
WEAK = Isolation(level="no-namespaces", namespaces=False, read_only_root=False, landlock=7, seccomp=True)


class Scripted(Runner):
    """Passes every test but those named in `fail`; reports `isolation` as the judge would."""

    def __init__(self, fail=(), isolation=None):
        self.fail, self.isolation, self.seen = set(fail), isolation or STRONG, None

    def run(self, before, tests, seed=0, limits=None):
        self.seen = (before, tests)
        outcomes = [Outcome("failed", "wrong", "wrong-derivative") if g in self.fail else Outcome("passed")
                    for g, _ in tests]
        return Graded(tuple(outcomes), ("a note from the run",), "", self.isolation)


def submission(answers: dict | None = None):
    """The reference notebook as a learner's Submission (answers: grade_id -> text replaces those cells)."""
    import copy

    nb = copy.deepcopy(SOURCE.notebook)
    for cell in nb.cells:
        gid = notebooks.nbgrader_meta(cell).get("grade_id")
        if answers and gid in answers:
            cell.source = answers[gid]
    return notebooks.submission_from_text(__import__("nbformat").writes(nb), "mine.ipynb")


def test_the_pipeline_is_the_ordered_steps():
    assert [s.__name__ for s in grading.PIPELINE] == ["plan_step", "run_step", "isolation_step",
                                                       "missing_answers_step", "report_step", "autograded_step"]


def test_plan_takes_the_answers_from_the_submission_and_the_rest_from_the_source():
    g = Grading(submission({"answer_Square": "SQUARE = 'mine'"}), Scripted())
    grading.plan_step(g)
    assert ("answer_Square", "SQUARE = 'mine'") in g.before
    assert [t[0] for t in g.tests] == SOURCE.grade_ids("test") and all(t[1] > 0 for t in g.tests)


def test_run_records_one_result_per_test_with_its_points():
    runner = Scripted(fail={"test_Square_values"})
    g = Grading(submission(), runner)
    grading.plan_step(g)
    grading.run_step(g)
    by_id = {r.grade_id: r for r in g.results}
    assert by_id["test_Square_values"].points == 0 and by_id["test_Square_values"].mistake == "wrong-derivative"
    assert all(r.points == r.max_points for r in g.results if r.grade_id != "test_Square_values")
    assert g.notes == ["a note from the run"] and g.isolation is STRONG


@pytest.mark.parametrize("isolation, noted", [(STRONG, False), (WEAK, True), (Isolation(), True), (None, False)])
def test_isolation_step_notes_a_weaker_grade(isolation, noted):
    g = Grading(submission(), Scripted(), isolation=isolation)
    grading.isolation_step(g)
    assert any("weaker isolation" in n for n in g.notes) == noted


def test_missing_answers_step_names_the_lost_cell_on_failed_tests_only():
    sub = submission()
    sub.answers.pop("answer_Square")
    g = Grading(sub, Scripted())
    g.results = [CellResult("test_Square_values", 0, 1, "failed", "wrong"),
                 CellResult("test_Square_grad", 1, 1, "passed", "passed")]
    grading.missing_answers_step(g)
    assert "no answer cell answer_Square" in g.results[0].feedback and g.results[1].feedback == "passed"


def test_report_step_sums_the_points_and_keeps_the_notes():
    g = Grading(submission(), Scripted(), notes=["n"])
    g.results = [CellResult("a", 1, 2, "failed", "x"), CellResult("b", 3, 3, "passed", "passed")]
    grading.report_step(g)
    assert (g.report.score, g.report.max_score, g.report.notes) == (4, 5, ["n"])
    assert g.report.notebook == "mine.ipynb" and g.report.assignment == "01_square"


@pytest.mark.parametrize("autograded", [True, False])
def test_autograded_step_builds_nbgraders_view_only_when_asked(autograded):
    g = Grading(submission(), Scripted(), autograded=autograded)
    g.results = [CellResult(t, 0, 1, "failed", "because") for t in SOURCE.grade_ids("test")]
    grading.autograded_step(g)
    if not autograded:
        assert g.notebook is None
        return
    errors = [o for c in g.notebook.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert len(errors) == len(SOURCE.grade_ids("test")) and errors[0].evalue == "because"


def test_grade_submission_runs_the_steps_end_to_end_with_a_given_runner():
    failing = SOURCE.grade_ids("test")[-1]
    report, notebook = grading.grade_submission(submission(), Scripted(fail={failing}))
    lost = next(r.max_points for r in report.cells if r.grade_id == failing)
    assert lost > 0 and report.score == report.max_score - lost
    assert notebook is not None and report.sha256
