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


# ------------------------------------------------------------------ the CLI itself: version, help, progress

def _subcommands():
    import argparse

    from autograder.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return parser, sub.choices


def test_version_prints_the_package_version():
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    run = run_cli("--version")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"python -m autograder {version}"


def test_every_command_and_option_has_help_text():
    parser, commands = _subcommands()
    assert {"grade", "release", "autograde", "feedback", "export", "report", "collect", "gradescope",
            "demo"} <= set(commands)
    for name, command in commands.items():
        assert command.description, name
        for action in command._actions:
            assert action.help, f"{name} {'/'.join(action.option_strings) or action.dest} has no help text"


def test_every_commands_help_ends_with_examples_that_parse():
    import re
    import shlex

    parser, commands = _subcommands()
    for name, command in commands.items():
        text = command.format_help()
        assert "\nexamples:\n" in text, f"{name} --help has no examples"
        examples = [line.strip() for line in text.split("\nexamples:\n", 1)[1].splitlines() if line.strip()]
        assert examples, name
        for line in examples:
            words = shlex.split(re.split(r"\s{3,}", line)[0])
            assert words[:4] == ["python", "-m", "autograder", name], line
            parser.parse_args(words[3:])  # an unknown option or a bad value exits: the example is wrong
    run = run_cli("release", "--help")
    assert run.returncode == 0 and "examples:" in run.stdout and "--quiet" in run.stdout


@pytest.fixture
def fake_release(tmp_path, monkeypatch):
    """`release` without its 285 s: the references "graded" at once and nbgrader's writer stubbed, so only
    what the command says as it goes is real. course/ is a temporary folder."""
    import contextlib
    import types

    import nbgrader.apps

    from autograder.engine import grading, notebooks
    from autograder import paths

    sources = notebooks.sources()[:3]
    monkeypatch.setattr(notebooks, "sources", lambda: sources)
    monkeypatch.setattr(grading, "new_sandbox", lambda **_: contextlib.nullcontext())
    passed = [types.SimpleNamespace(status="passed")]
    monkeypatch.setattr(grading, "reference_report",
                        lambda source, sandbox, seed=0: grading.Report(source.path.name, source.assignment, 3, 3,
                                                                       passed))
    written = []

    class API:
        def __init__(self, config):
            pass

        def generate_assignment(self, assignment, force, create):
            written.append(assignment)
            return {"success": True}

    monkeypatch.setattr(nbgrader.apps, "NbGraderAPI", API)
    monkeypatch.setattr(paths, "COURSE", tmp_path / "course")
    (tmp_path / "course").mkdir()
    monkeypatch.setenv("AUTOGRADER_HOME", str(tmp_path / "home"))
    return [s.assignment for s in sources], written


def test_release_prints_a_line_per_notebook_to_stderr(fake_release, capsys):
    from autograder import cli

    assignments, written = fake_release
    assert cli.main(["release"]) == 0
    out, err = capsys.readouterr()
    assert written == assignments
    lines = err.splitlines()
    for number, assignment in enumerate(assignments, 1):
        assert any(f"checking {assignment} ({number}/{len(assignments)})" in line for line in lines), err
        assert any(f"checked  {assignment}: reference 3/3" in line for line in lines), err
        assert any(f"released {assignment} ({number}/{len(assignments)})" in line for line in lines), err
    assert "checking" not in out and "released 0 notebooks" in out  # stdout: the result alone


def test_release_quiet_prints_no_progress(fake_release, capsys):
    from autograder import cli

    assert cli.main(["release", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_report_and_export_say_what_they_read(tmp_path, monkeypatch, capsys):
    from autograder.classroom import class_report, gradebook
    from autograder import cli

    monkeypatch.setenv("AUTOGRADER_HOME", str(tmp_path))
    for student, score in (("ada", 3), ("alan", 2)):
        marker = tmp_path / "autograded" / student / "01_square" / "01_square.ipynb.grade.json"
        marker.parent.mkdir(parents=True)
        marker.write_text(json.dumps({"student": student, "notebook": "01_square.ipynb", "assignment": "01_square",
                                      "score": score, "max_score": 3, "cells": []}))
    monkeypatch.setattr(class_report, "write", lambda reports, path=None: tmp_path / "class-report.html")
    assert cli.main(["report"]) == 0
    err = capsys.readouterr().err
    assert "ada: 1 notebooks, 3/3" in err and "alan: 1 notebooks, 2/3" in err

    def export_csv(path, db_url, assignments):
        path = tmp_path / "grades.csv"
        path.write_text("assignment,student_id,score\n01_square,ada,3\n01_square,alan,2\n")
        return path

    monkeypatch.setattr(gradebook, "export_csv", export_csv)
    assert cli.main(["export"]) == 0
    out, err = capsys.readouterr()
    assert "reading the gradebook" in err and "wrote 2 rows" in err and "grades.csv" in out
    assert cli.main(["export", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_feedback_prints_a_line_per_assignment(tmp_path, monkeypatch, capsys):
    import nbgrader.apps

    from autograder import cli

    monkeypatch.setenv("AUTOGRADER_HOME", str(tmp_path))
    for student in ("ada", "alan"):
        for assignment in ("01_square", "03_shapes"):
            (tmp_path / "autograded" / student / assignment).mkdir(parents=True)
    done = []

    class API:
        def __init__(self, config):
            pass

        def generate_feedback(self, assignment, force):
            done.append(assignment)
            return {"success": True}

    monkeypatch.setattr(nbgrader.apps, "NbGraderAPI", API)
    assert cli.main(["feedback"]) == 0
    out, err = capsys.readouterr()
    assert done == ["01_square", "03_shapes"]
    assert "feedback 01_square (1/2): 2 students (ada, alan)" in err
    assert "feedback 03_shapes (2/2): 2 students (ada, alan)" in err and "wrote 0 feedback pages" in out
    assert cli.main(["feedback", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
