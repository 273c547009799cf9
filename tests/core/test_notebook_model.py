"""Cell roles, markers, matching and merging: the grader's small steps, each tested alone."""

import copy

import nbformat
import pytest

from autograder.engine import grading, notebooks
from autograder.engine.notebooks import NotebookError


@pytest.fixture(scope="module")
def square():
    return next(s for s in notebooks.sources() if s.assignment == "01_square")


def test_roles_of_notebook_01(square):
    assert square.grade_ids("answer") == ["answer_Square"]
    assert square.grade_ids("test") == ["test_Square_values", "test_Square_graph", "test_Square_saved"]
    assert len(square.cells("setup")) == 1


def test_strip_markers_keeps_content_and_hides_hidden_tests():
    source = "a\n### BEGIN HIDDEN TESTS\nsecret()\n### END HIDDEN TESTS\nb\n"
    assert notebooks.strip_markers(source) == "a\nsecret()\nb\n"
    assert "secret" not in notebooks.without_hidden_tests(source)


def test_merge_takes_only_answers_from_the_submission(square):
    submission = copy.deepcopy(square.notebook)
    for cell in submission.cells:
        meta = notebooks.nbgrader_meta(cell)
        if notebooks.role(cell) == "test":
            cell.source = "pass  # a student emptied this test"
            meta["points"] = 100
        if notebooks.role(cell) == "answer":
            cell.source = "Square = 'mine'"
    before, tests = grading.plan(square, submission)
    assert ("answer_Square", "Square = 'mine'") in before
    assert all("pass  # a student" not in src for _, _, src in tests)
    assert [p for _, p, _ in tests] == [1.0, 1.0, 1.0]


def test_deleted_test_cells_still_run(square):
    submission = copy.deepcopy(square.notebook)
    submission.cells = [c for c in submission.cells if notebooks.role(c) != "test"]
    _, tests = grading.plan(square, submission)
    assert len(tests) == 3


def test_missing_answer_runs_as_empty_cell(square):
    submission = copy.deepcopy(square.notebook)
    submission.cells = [c for c in submission.cells if notebooks.role(c) != "answer"]
    before, _ = grading.plan(square, submission)
    assert ("answer_Square", "") in before
    assert grading.missing_answers(square, submission) == ["answer_Square"]


def test_match_by_content_and_by_name(square):
    assert notebooks.match_source(square.notebook, "renamed.ipynb").assignment == "01_square"
    stripped = copy.deepcopy(square.notebook)
    for cell in stripped.cells:
        cell.metadata = {}
    assert notebooks.match_source(stripped, "01_square.ipynb").assignment == "01_square"
    with pytest.raises(NotebookError, match="not a notebook of this course"):
        notebooks.match_source(stripped, "unknown.ipynb")


@pytest.mark.parametrize("text", ["", "[]", "{", '{"cells": 3}', "null"])
def test_parse_rejects_non_notebooks(text):
    with pytest.raises(NotebookError):
        notebooks.parse(text, "x.ipynb")


def test_autograded_notebook_carries_feedback_as_error_output(square):
    results = [grading.CellResult("test_Square_values", 0, 1, "failed", "wrong derivative", "wrong-derivative"),
               grading.CellResult("test_Square_graph", 1, 1, "passed", "passed"),
               grading.CellResult("test_Square_saved", 1, 1, "passed", "passed")]
    nb = grading.autograded_notebook(square, square.notebook, results)
    from nbgrader.utils import determine_grade

    grades = {notebooks.nbgrader_meta(c)["grade_id"]: determine_grade(c)[0]
              for c in nb.cells if notebooks.role(c) == "test"}
    assert grades == {"test_Square_values": 0, "test_Square_graph": 1, "test_Square_saved": 1}
    nbformat.validate(nb)
