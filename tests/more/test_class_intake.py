"""A class with hostile and unusual students, through the paths an instructor takes: `collect` of a Canvas and a
Moodle download (late work, a Moodle site showing names "Last First", namesakes, a name that is a spreadsheet
formula, a notebook nested 100,000 deep), `autograde` with a late policy, both LMS exports, nbgrader's CSV and the
class report, each run as a command. Everyone else is graded; each bad input is said by name."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import nbformat
import pytest

from autograder.maintain import samples

from helpers import run_cli

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("class-intake")]

A = "01_square"
FORMULA = '=HYPERLINK("x.example";"click")'


def notebook() -> str:
    return nbformat.writes(samples.student_notebook(A)[1])


def deep() -> str:
    nb = json.loads(notebook())
    nb["metadata"]["x"] = "NEST"
    return json.dumps(nb).replace('"NEST"', "[" * 100_000 + "]" * 100_000)


def zipped(path, members: dict):
    """members: name -> text, or (text, zip time) as Moodle stores a submission's time."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, value in members.items():
            text, when = value if isinstance(value, tuple) else (value, (2024, 1, 5, 12, 0, 0))
            archive.writestr(zipfile.ZipInfo(name, when), text)
    return path


MOODLE_ROSTER = ("First name,Last name,ID number,Email address\n"
                 "Jane,Roe,S001,jroe@example.edu\n"
                 "Kim,Lee,S002,klee1@example.edu\n"
                 "Kim,Lee,S003,klee2@example.edu\n"
                 f'"{FORMULA.replace(chr(34), chr(34) * 2)}",Evil,S004,evil@example.edu\n'
                 "Ann,Late,S005,alate@example.edu\n")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("class")
    env = {"AUTOGRADER_HOME": str(work / "grading")}
    good = notebook()
    canvas = zipped(work / "canvas.zip", {"doejane_12345_678901_01_square.ipynb": good,
                                          "smithjohn_LATE_67890_678902_01_square.ipynb": good,
                                          "@SUM(A1)_555_678903_01_square.ipynb": good,
                                          "deepdan_777_678904_01_square.ipynb": deep()})
    moodle = zipped(work / "moodle.zip", {
        "Roe Jane_4242_assignsubmission_file/01_square.ipynb": good,                    # "Last First"
        "Kim Lee_11_assignsubmission_file/01_square.ipynb": good,
        "Kim Lee_12_assignsubmission_file/01_square.ipynb": good,
        f"{FORMULA} Evil_13_assignsubmission_file/01_square.ipynb": good,
        "Late Ann_14_assignsubmission_file/01_square.ipynb": (good, (2024, 1, 9, 2, 30, 0))})
    runs = {"canvas": run_cli("collect", str(canvas), env=env),
            "canvas-assignment": run_cli("collect", str(canvas), "--assignment", A, env=env),
            "moodle": run_cli("collect", str(moodle), "--due", "2024-01-08 23:59", env=env)}
    runs["autograde"] = run_cli("autograde", "--allow-weak-isolation", "--late-policy", "subtract",
                                "--late-penalty", "0.5", env=env, timeout=900)
    roster = work / "roster.csv"
    roster.write_text(MOODLE_ROSTER, encoding="utf-8")
    runs["moodle-export"] = run_cli("export", "--format", "moodle", "--roster", str(roster), "--output",
                                    str(work / "moodle.csv"), env=env)
    runs["canvas-export"] = run_cli("export", "--format", "canvas", "--output", str(work / "canvas.csv"), env=env)
    runs["nbgrader-export"] = run_cli("export", "--output", str(work / "grades.csv"), env=env)
    runs["report"] = run_cli("report", "--output", str(work / "report.html"), env=env)
    return work, runs


def cells(path) -> list[str]:
    return [c for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"))) for c in row]


def test_collect_names_what_it_leaves_out(graded):
    _, runs = graded
    canvas = runs["canvas"]
    assert canvas.returncode == 1 and "collected 3 notebooks from 3 students" in canvas.stdout, canvas.stderr
    assert "left out: deepdan_777_678904_01_square.ipynb: not collected, not a notebook (its JSON nests more " \
           "than 64 levels deep" in canvas.stderr
    assert "late (1): smithjohn/01_square/01_square" in canvas.stdout
    moodle = runs["moodle"]
    assert moodle.returncode == 0 and "collected 5 notebooks from 5 students" in moodle.stdout, moodle.stderr
    assert "note: 2 students in . are all named 'kim-lee'" in moodle.stderr and "UserWarning" not in moodle.stderr
    assert "late (1): late-ann/01_square/01_square" in moodle.stdout
    assert all("Traceback" not in r.stderr for r in runs.values())


def test_autograde_grades_everyone_and_applies_the_late_policy(graded):
    work, runs = graded
    done = runs["autograde"]
    assert done.returncode == 0, done.stderr[-3000:]
    assert "graded 9 notebooks" in done.stdout
    reports = {json.loads(p.read_text())["student"]: json.loads(p.read_text())
               for p in (work / "grading" / "autograded").glob(f"*/{A}/*.grade.json")}
    assert reports["deepdan"]["score"] == 0 and "nests more than 64" in reports["deepdan"]["cells"][0]["feedback"]
    assert reports["doejane"]["score"] == 3 and reports["doejane"]["late_penalty"] == 0
    assert reports["smithjohn"]["raw_score"] == 3 and reports["smithjohn"]["score"] == 2.5  # Canvas: one hour
    late = reports["late-ann"]
    assert late["lateness"]["hours_late"] == 3 and late["score"] == 1.5, late["lateness"]
    assert "*" in done.stdout and "late (the score after the late policy)" in done.stdout
    assert "\r" not in done.stderr, "no progress bar in a log"


def test_exports_hold_no_formula_and_the_penalised_scores(graded):
    work, runs = graded
    for name in ("moodle-export", "canvas-export", "nbgrader-export"):
        assert (work / f"{name.split('-')[0]}.csv" if name != "nbgrader-export" else work / "grades.csv").exists()
    for path in (work / "moodle.csv", work / "canvas.csv", work / "grades.csv"):
        formulas = [c for c in cells(path) if c[:1] in ("=", "+", "@", "\t", "\r") or
                    (c[:1] == "-" and not c[1:].replace(".", "").isdigit())]
        assert not formulas, (path.name, formulas)
    moodle = list(csv.reader(io.StringIO((work / "moodle.csv").read_text(encoding="utf-8"))))
    by_email = {r[3]: r for r in moodle[1:]}
    assert by_email["jroe@example.edu"][4] == "3", "a 'Last First' folder finds Jane Roe"
    assert by_email["evil@example.edu"][0] == "'" + FORMULA
    assert by_email["alate@example.edu"][4] == "1.5"
    assert not {"klee1@example.edu", "klee2@example.edu"} & set(by_email), "namesakes are not guessed"
    out = runs["moodle-export"]
    assert out.returncode == 1
    assert "kim-lee-11 (Kim Lee): the roster has 2 people of that name" in out.stdout
    assert "without an email address or ID number (pass --roster" not in out.stdout
    grades = list(csv.DictReader(io.StringIO((work / "grades.csv").read_text(encoding="utf-8"))))
    smith = next(r for r in grades if r["student_id"] == "smithjohn")
    assert float(smith["raw_score"]) == 3 and float(smith["late_submission_penalty"]) == 0.5
    assert any(r["student_id"] == "'@SUMA1" for r in grades)


def test_the_report_is_drawn(graded):
    work, runs = graded
    assert runs["report"].returncode == 0, runs["report"].stderr[-2000:]
    page = (work / "report.html").read_text()
    assert "<h2>Late submissions (2)</h2><p>Late policy: subtract (0.5 points per started hour late).</p>" in page
    assert "Moodle&#x27;s submission time 2024-01-09T02:30:00, after the due date 2024-01-08T23:59:00" in page


def test_a_learners_mistake_code_never_reaches_the_charts(tmp_path):
    """A learner can raise Mistake with any code: the report counts it as undeclared, and draws."""
    home = tmp_path / "grading"
    marker = home / "autograded" / "ada" / A / f"{A}.grade.json"
    marker.parent.mkdir(parents=True)
    cell = {"grade_id": "test_square", "status": "failed", "mistake": r"$\rtthree{$", "points": 0,
            "max_points": 3, "feedback": "x"}
    marker.write_text(json.dumps({"student": "ada", "notebook": f"{A}.ipynb", "assignment": A, "score": 0,
                                  "max_score": 3, "cells": [cell]}))
    done = run_cli("report", "--output", str(tmp_path / "r.html"), env={"AUTOGRADER_HOME": str(home)})
    assert done.returncode == 0, done.stderr[-2000:]
    page = (tmp_path / "r.html").read_text()
    assert "undeclared-code" in page and "rtthree" not in page


def test_grade_refuses_a_deeply_nested_notebook_with_a_sentence(tmp_path):
    path = tmp_path / "deep.ipynb"
    path.write_text(deep())
    done = run_cli("grade", str(path))
    assert done.returncode == 2 and "nests more than 64 levels deep" in done.stderr
    assert "Traceback" not in done.stderr
