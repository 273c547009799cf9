"""Grades back into the LMS: collect a Canvas and a Moodle download, autograde, export each LMS's gradebook
import CSV, and the rows are the download's students (by the ids the LMS matches on) with their scores."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import nbformat
import pytest

from autograder.classroom import autograde as classroom, lms
from autograder.engine import grading
from autograder.maintain import samples

from helpers import run_cli
from lms_readers import read_as_canvas, read_as_moodle

CLASS_RUNNER = grading.new_sandbox(for_a_class=True)  # a handle: its root starts on first use

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("lms-export")]

A = "01_square"
WRONG = {e.name: e.source for e in samples.zoo() if e.exercise == "Square"}["wrong_derivative"]


def notebook(answer: str | None = None) -> str:
    _, nb = samples.student_notebook(A, {"Square": answer} if answer else None)
    return nbformat.writes(nb)


def download(path, files: dict[str, str]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


# The downloads: who is in each, with the id the LMS matches on and the score they should get.
CANVAS = {"doejane_12345_678901_01_square.ipynb": ("doejane", "12345", 3),
          "smithjohn_LATE_67890_678902_my homework.ipynb": ("smithjohn", "67890", 2)}
MOODLE = {"Jane Roe_4242_assignsubmission_file/01_square.ipynb": ("jane-roe", "jroe@example.edu", 3),
          "José Núñez_777_assignsubmission_file/work/renamed.ipynb": ("jose-nunez", "jnunez@example.edu", 2)}
MOODLE_ROSTER = ("First name,Last name,ID number,Institution,Department,Email address,"
                 "Assignment: 01_square (Real),Last downloaded from this course\n"
                 "Jane,Roe,S001,,,jroe@example.edu,-,1700000000\n"
                 "José,Núñez,S002,,,jnunez@example.edu,-,1700000000\n"
                 "Ann,Other,S003,,,aother@example.edu,-,1700000000\n")
CANVAS_ROSTER = ("Student,ID,SIS User ID,SIS Login ID,Section,01_square (998877)\n"
                 "    Points Possible,,,,,3\n"
                 '"Doe, Jane",12345,U1,jdoe,Section A,\n'
                 '"Smith, John",67890,U2,jsmith,Section B,\n')


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("lms")
    home = work / "grading"
    mp = pytest.MonkeyPatch()
    mp.setenv("AUTOGRADER_HOME", str(home))
    canvas = download(work / "canvas.zip", {name: notebook(None if score == 3 else WRONG)
                                            for name, (_, _, score) in CANVAS.items()})
    moodle = download(work / "moodle.zip", {name: notebook(None if score == 3 else WRONG)
                                            for name, (_, _, score) in MOODLE.items()})
    for zip_path in (canvas, moodle):
        collected = run_cli("collect", str(zip_path), env={"AUTOGRADER_HOME": str(home)})
        assert collected.returncode == 0, collected.stderr
        assert "collected 2 notebooks from 2 students" in collected.stdout
    result = classroom.autograde(CLASS_RUNNER, assignment=A, progress=False, allow_weak_isolation=True)
    assert len(result.graded) == 4
    yield work, home
    mp.undo()


def test_collect_keeps_the_lms_ids(graded):
    _, home = graded
    ids = json.loads((home / lms.IDENTITIES).read_text())
    assert ids["doejane"] == {"lms": "canvas", "canvas_user_id": "12345"}
    assert ids["smithjohn"]["canvas_user_id"] == "67890"
    assert ids["jane-roe"] == {"lms": "moodle", "name": "Jane Roe", "moodle_participants": {A: "4242"}}
    assert ids["jose-nunez"]["name"] == "José Núñez"


def test_canvas_export_round_trips(graded):
    work, home = graded
    out = work / "canvas.csv"
    done = run_cli("export", "--format", "canvas", "--output", str(out), env={"AUTOGRADER_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    table = rows(out.read_text())
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", A]
    assert table[1] == ["Points Possible", "", "", "", "", "3"]
    got = {r[1]: (r[0], float(r[5])) for r in table[2:]}
    assert got == {key: (student, score) for student, key, score in CANVAS.values()}
    assert "jane-roe" in done.stdout and "jose-nunez" in done.stdout  # Moodle's students: no Canvas id

    roster = work / "canvas-roster.csv"
    roster.write_text(CANVAS_ROSTER)
    assert run_cli("export", "--format", "canvas", "--output", str(out), "--roster", str(roster),
                   env={"AUTOGRADER_HOME": str(home)}).returncode == 0
    table = rows(out.read_text())
    assert table[0][5] == "01_square (998877)"  # the existing Canvas assignment, not a new one
    assert table[2] == ["Doe, Jane", "12345", "U1", "jdoe", "Section A", "3"]


def test_moodle_export_round_trips(graded):
    work, home = graded
    out = work / "moodle.csv"
    env = {"AUTOGRADER_HOME": str(home)}
    alone = run_cli("export", "--format", "moodle", "--output", str(out), env=env)
    assert alone.returncode == 2 and "--roster" in alone.stderr, "Moodle cannot match anyone without a roster"
    assert not out.exists()
    roster = work / "moodle-roster.csv"
    roster.write_text(MOODLE_ROSTER, encoding="utf-8")
    done = run_cli("export", "--format", "moodle", "--output", str(out), "--roster", str(roster), env=env)
    assert done.returncode == 0, done.stderr
    table = rows(out.read_text(encoding="utf-8"))
    assert table[0] == ["First name", "Last name", "ID number", "Email address", "Assignment: 01_square (Real)"]
    got = {r[3]: float(r[4]) for r in table[1:]}
    assert got == {email: score for _, email, score in MOODLE.values()}
    assert ["José", "Núñez", "S002", "jnunez@example.edu", "2"] in table
    assert "doejane" in done.stdout  # a Canvas student Moodle cannot match
    read = read_as_moodle(out.read_bytes(), ["Assignment: 01_square"])
    graded = {r["student"]: f"{r['score']:g}" for r in classroom.reports()}
    expected = {email: graded[student] for student, email, _ in MOODLE.values()}
    assert read == {"mapped": {"Assignment: 01_square": expected}, "unmapped": []}


def test_canvas_import_updates_the_named_assignment(graded):
    """The graded class, exported with --column, read back as Canvas's import reads it."""
    work, home = graded
    out = work / "canvas-column.csv"
    done = run_cli("export", "--format", "canvas", "--output", str(out), "--column",
                   f"{A}=Notebook 01 - The skeleton (998877)", env={"AUTOGRADER_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    read = read_as_canvas(out.read_bytes(), {"998877": "Notebook 01 - The skeleton"}, {"12345", "67890"})
    graded = {r["student"]: f"{r['score']:g}" for r in classroom.reports()}  # whatever the grader gave them
    assert read == {"updated": {"998877": {key: graded[student] for student, key, _ in CANVAS.values()}},
                    "created": {}, "unknown students": []}


def test_unknown_assignments_are_refused(graded):
    work, home = graded
    env = {"AUTOGRADER_HOME": str(home)}
    for args in (["autograde", "--assignment", "99_nope"], ["export", "--assignment", "99_nope"],
                 ["export", "--format", "canvas", "--assignment", "99_nope"]):
        done = run_cli(*args, env=env)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "'99_nope' is not an assignment of this course" in done.stderr and A in done.stderr


def test_default_export_is_still_nbgraders(graded):
    _, home = graded
    done = run_cli("export", env={"AUTOGRADER_HOME": str(home)})
    assert done.returncode == 0
    header = rows((home / "grades.csv").read_text())[0]
    assert header[:4] == ["assignment", "duedate", "timestamp", "student_id"]
