"""`python -m autograder grade`: the self-learner's command and the JSON contract outside tools rely on."""

import json

import pytest

from helpers import ROOT, run_cli, write_student

CELL_KEYS = {"grade_id", "points", "max_points", "status", "feedback"}


def test_filled_notebook_scores_full_marks_as_json(tmp_path):
    nb = write_student(tmp_path / "01_square.ipynb", "01_square")
    run = run_cli("grade", str(nb), "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert {"notebook", "score", "max_score", "cells"} <= set(report)
    assert report["notebook"] == "01_square.ipynb"
    assert report["max_score"] > 0 and report["score"] == report["max_score"]
    for cell in report["cells"]:
        assert CELL_KEYS <= set(cell)
        assert cell["status"] == "passed"


def test_unfilled_release_scores_zero_with_plain_feedback():
    run = run_cli("grade", str(ROOT / "course" / "01_square" / "01_square.ipynb"), "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["score"] == 0 and report["max_score"] > 0
    assert all(c["status"] in ("failed", "error") for c in report["cells"])
    assert all("not implemented" in c["feedback"] for c in report["cells"])


def test_human_report_names_the_mistake(tmp_path):
    wrong = (ROOT / "tests" / "zoo" / "Square" / "ctx_attribute.py").read_text()
    nb = write_student(tmp_path / "mine.ipynb", "01_square", {"Square": wrong})
    run = run_cli("grade", str(nb))
    assert run.returncode == 0, run.stderr
    assert "save_for_backward" in run.stdout
    assert "score: 2 / 3" in run.stdout


def test_works_from_any_directory(tmp_path):
    nb = write_student(tmp_path / "elsewhere" / "01_square.ipynb", "01_square")
    run = run_cli("grade", "01_square.ipynb", "--json", cwd=nb.parent)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["score"] == json.loads(run.stdout)["max_score"]


@pytest.mark.parametrize("content, message", [
    ("this is not json", "not a notebook"),
    ('{"cells": "nope"}', "not a Jupyter notebook"),
    ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}', "not a notebook of this course"),
])
def test_bad_input_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.ipynb"
    path.write_text(content)
    run = run_cli("grade", str(path), "--json")
    assert run.returncode == 2
    assert message in run.stderr
    assert run.stdout == ""


def test_missing_file_and_folder_are_clear_errors(tmp_path):
    run = run_cli("grade", str(tmp_path / "nowhere.ipynb"))
    assert run.returncode == 2 and "no such file" in run.stderr
    run = run_cli("grade", str(tmp_path))
    assert run.returncode == 2 and "is a folder" in run.stderr


def test_renamed_notebook_is_recognised_by_content(tmp_path):
    nb = write_student(tmp_path / "my homework (1).ipynb", "01_square")
    run = run_cli("grade", str(nb), "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["assignment"] == "01_square" and report["score"] == report["max_score"]
