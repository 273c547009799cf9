"""`export --format canvas|moodle` puts each assignment's grades in the LMS column it names (`--column`, or
the columns of the LMS's own export given as `--roster`), read back as Canvas's and Moodle's imports read
a CSV (tests/lms_readers.py); and every export that would be wrong or empty says why and exits non-zero,
writing nothing. The gradebook is replaced by fixed scores: these tests grade nothing."""

from __future__ import annotations

import json

import pytest

from autograder import cli
from autograder.classroom import lms

from lms_readers import read_as_canvas, read_as_moodle

A, B = "01_square", "00_when_to_write_one"
SCORES = {"doejane": {A: 3.0, B: 2.0}, "smithjohn": {A: 1.0}, "jane-roe": {A: 3.0}, "jose-nunez": {A: 1.0}}
POSSIBLE = {A: 3.0, B: 3.0}
IDS = {"doejane": {"lms": "canvas", "canvas_user_id": "12345"},
       "smithjohn": {"lms": "canvas", "canvas_user_id": "67890"},
       "jane-roe": {"lms": "moodle", "name": "Jane Roe", "moodle_participants": {A: "4242"}},
       "jose-nunez": {"lms": "moodle", "name": "José Núñez", "moodle_participants": {A: "777"}}}
# The Canvas course: its assignments (id -> title) and its students' user ids.
CANVAS_COURSE = {"998877": "Notebook 01 - The skeleton", "998876": "Notebook 00 - When to write one"}
CANVAS_STUDENTS = {"12345", "67890"}
CANVAS_ROSTER = ("Student,ID,SIS User ID,SIS Login ID,Section,Notebook 00 - When to write one (998876),"
                 "Notebook 01 - The skeleton (998877),Assignments Current Score,Current Score,Final Score\n"
                 "    Points Possible,,,,,3,3,(read only),(read only),(read only)\n"
                 '"Doe, Jane",12345,U1,jdoe,Section A,,,,,\n'
                 '"Smith, John",67890,U2,jsmith,Section B,,,,,\n')
MOODLE_ITEMS = ["Assignment: Notebook 01 - The skeleton", "Assignment: 01_square"]
MOODLE_ROSTER = ("First name,Last name,ID number,Institution,Department,Email address,"
                 "Assignment: Notebook 01 - The skeleton (Real),Last downloaded from this course\n"
                 "Jane,Roe,S001,,,jroe@example.edu,-,1700000000\n"
                 "José,Núñez,S002,,,jnunez@example.edu,-,1700000000\n")


@pytest.fixture
def course(grading_home, monkeypatch, tmp_path):
    """A graded class (fixed scores) whose LMS ids collect kept; returns a function running `export`."""
    monkeypatch.setattr(lms, "gradebook_scores", lambda db_url=None: (
        {s: dict(v) for s, v in SCORES.items()}, dict(POSSIBLE)))
    (grading_home / lms.IDENTITIES).write_text(json.dumps(IDS), encoding="utf-8")

    def run(capsys, *args, roster: str | None = None, kind: str = "canvas"):
        out = tmp_path / f"grades-{kind}.csv"
        argv = ["export", "--output", str(out), *args]
        if roster is not None:
            path = tmp_path / "roster.csv"
            path.write_text(roster, encoding="utf-8")
            argv += ["--roster", str(path)]
        code = cli.main(argv)
        printed = capsys.readouterr()
        return code, printed.out, printed.err, out
    return run


def canvas(data: bytes) -> dict:
    return read_as_canvas(data, CANVAS_COURSE, CANVAS_STUDENTS)


def test_without_a_column_canvas_creates_a_new_assignment(course, capsys):
    """What issue 27 found: grades land in a new column unless the Canvas title is the notebook's name."""
    code, out, _, csv_path = course(capsys, "--format", "canvas")
    assert code == 0
    read = canvas(csv_path.read_bytes())
    assert read["updated"] == {} and set(read["created"]) == {A, B}
    assert f'{A} -> "{A}": updates the Canvas assignment titled exactly so, or creates one' in out


@pytest.mark.parametrize("value", ["Notebook 01 - The skeleton (998877)", "998877"])
def test_column_points_canvas_at_the_existing_assignment(course, capsys, value):
    code, out, err, csv_path = course(capsys, "--format", "canvas", "--column", f"{A}={value}",
                                      "--column", f"{B}=Notebook 00 - When to write one (998876)")
    assert code == 0, err
    read = canvas(csv_path.read_bytes())
    assert read["created"] == {}, "no new assignment"
    assert read["updated"] == {"998877": {"12345": "3", "67890": "1"}, "998876": {"12345": "2"}}
    assert read["unknown students"] == []
    assert f"{A} -> " in out and "updates Canvas assignment 998877" in out
    assert "jane-roe" in out and "jose-nunez" in out  # Moodle's students: no Canvas user id, said so


@pytest.mark.parametrize("columns", [[], [f"{A}=Notebook 01 - The skeleton"], [f"{A}=998877"]])
def test_the_roster_gives_the_titles_and_ids(course, capsys, columns):
    """A Canvas gradebook export as --roster: --column may name a title it has (or the id alone); a
    roster column titled like the assignment is found without --column only when the titles are equal."""
    args = ["--format", "canvas", "--assignment", A] + [x for c in columns for x in ("--column", c)]
    code, out, err, csv_path = course(capsys, *args, roster=CANVAS_ROSTER)
    assert code == 0, err
    read = canvas(csv_path.read_bytes())
    if columns:
        assert read["updated"] == {"998877": {"12345": "3", "67890": "1"}} and read["created"] == {}
        assert csv_path.read_text(encoding="utf-8").splitlines()[0].endswith(",Notebook 01 - The skeleton (998877)")
    else:
        assert read["created"] == {A: {"12345": "3", "67890": "1"}}
        assert "the roster has no column for it, so Canvas creates a new assignment" in out
    assert csv_path.read_text(encoding="utf-8").splitlines()[2] == '"Doe, Jane",12345,U1,jdoe,Section A,3'


@pytest.mark.parametrize("value, says", [
    ("Notebook 01 - The skeletn", "has no assignment titled so"),
    ("Notebook 01 - The skeleton (111)", "has no assignment with id 111"),
])
def test_a_column_the_roster_does_not_have_is_refused(course, capsys, value, says):
    code, _, err, csv_path = course(capsys, "--format", "canvas", "--column", f"{A}={value}", roster=CANVAS_ROSTER)
    assert code == 2 and says in err and "Notebook 01 - The skeleton (998877)" in err  # lists what there is
    assert not csv_path.exists()


def test_a_semicolon_roster_with_a_bom_is_read(course, capsys):
    """Canvas writes `;` where the user asked for it (a comma-decimal locale), and a byte-order mark where
    the user asked for that (for Excel)."""
    roster = "\ufeff" + CANVAS_ROSTER.replace(",", ";").replace('"Doe; Jane"', '"Doe, Jane"').replace(
        '"Smith; John"', '"Smith, John"')
    code, _, err, csv_path = course(capsys, "--format", "canvas", "--assignment", A, "--column",
                                    f"{A}=Notebook 01 - The skeleton", roster=roster)
    assert code == 0, err
    assert canvas(csv_path.read_bytes())["updated"] == {"998877": {"12345": "3", "67890": "1"}}
    assert '"Doe, Jane",12345,U1,jdoe,Section A,3' in csv_path.read_text(encoding="utf-8")


def test_canvas_csv_is_utf8_without_bom_and_keeps_names(course, capsys):
    roster = CANVAS_ROSTER.replace('"Doe, Jane"', '"Müller, Jürgen"')
    code, _, err, csv_path = course(capsys, "--format", "canvas", "--column", f"{A}=998877", roster=roster)
    assert code == 0, err
    data = csv_path.read_bytes()
    assert data.startswith(b"Student,ID,"), "Ruby's CSV keeps a BOM in the first cell: none is written"
    assert '"Müller, Jürgen",12345'.encode("utf-8") in data


def test_moodle_reads_the_columns_it_maps_by_itself(course, capsys):
    code, out, err, csv_path = course(capsys, "--format", "moodle", "--assignment", A, roster=MOODLE_ROSTER,
                                      kind="moodle")
    assert code == 0, err
    # The roster has no item named 01_square: the default header maps to an item named so, if Moodle has one.
    assert read_as_moodle(csv_path.read_bytes(), MOODLE_ITEMS[:1]) == {
        "mapped": {}, "unmapped": ["Assignment: 01_square (Real)"]}
    assert read_as_moodle(csv_path.read_bytes(), MOODLE_ITEMS)["mapped"] == {
        "Assignment: 01_square": {"jroe@example.edu": "3", "jnunez@example.edu": "1"}}
    code, out, err, csv_path = course(capsys, "--format", "moodle", "--assignment", A, "--column",
                                      f"{A}=Notebook 01 - The skeleton", roster=MOODLE_ROSTER, kind="moodle")
    assert code == 0, err
    read = read_as_moodle(csv_path.read_bytes(), MOODLE_ITEMS)
    assert read == {"mapped": {"Assignment: Notebook 01 - The skeleton": {"jroe@example.edu": "3",
                                                                        "jnunez@example.edu": "1"}},
                    "unmapped": []}
    by_id = read_as_moodle(csv_path.read_bytes(), MOODLE_ITEMS, identify_by="ID number")
    assert by_id["mapped"]["Assignment: Notebook 01 - The skeleton"] == {"S001": "3", "S002": "1"}
    assert "José,Núñez,S002".encode("utf-8") in csv_path.read_bytes()
    assert "doejane" in out  # a Canvas student Moodle cannot match


# ------------------------------------------------------------------------------------- refused, said why

@pytest.mark.parametrize("args, roster, says", [
    (["--format", "moodle"], None, "pass --roster with Moodle's grade export"),
    (["--format", "moodle"], CANVAS_ROSTER,
     "is Canvas's gradebook export, not Moodle's: pass it to export --format canvas"),
    (["--format", "canvas"], MOODLE_ROSTER,
     "is Moodle's grade export, not Canvas's: pass it to export --format moodle"),
    (["--format", "canvas"], "name,email,grade\nJane,j@x.edu,3\n",
     "it has none of those columns (its columns: name, email, grade)"),
    (["--format", "moodle"], "", "none (the file is empty)"),
    (["--format", "moodle"], MOODLE_ROSTER.replace("Jane,Roe", "Ann,Other").replace("José,Núñez", "Bob,Other"),
     "no student could be matched for Moodle's import, nothing written"),
    (["--format", "canvas", "--assignment", "99_nope"], None, "'99_nope' is not an assignment of this course"),
    (["--format", "canvas", "--column", "99_nope=Quiz (1)"], None, "'99_nope' is not an assignment of this course"),
    (["--format", "canvas", "--column", "01_square"], None, 'write it ASSIGNMENT="LMS column"'),
    (["--format", "canvas", "--assignment", "03_shapes"], None, "the gradebook holds no grades of 03_shapes"),
    (["--assignment", "99_nope"], None, "'99_nope' is not an assignment of this course"),
    (["--column", f"{A}=998877"], None, "--column need --format canvas or --format moodle"),
    (["--format", "canvas", "--column", f"{A}=998877", "--column", f"{B}=Other title (998877)"], None,
     f"{B} and {A} would both go to the column"),
])
def test_bad_exports_exit_non_zero_with_a_sentence(course, capsys, args, roster, says):
    code, out, err, csv_path = course(capsys, *args, roster=roster)
    assert code == 2, (out, err)
    assert says in err, err
    assert not csv_path.exists(), "nothing is written"


def test_an_export_that_matches_nobody_fails(course, capsys, grading_home):
    """A class collected from Moodle, exported for Canvas without a roster: nobody has a Canvas id."""
    (grading_home / lms.IDENTITIES).write_text(json.dumps({k: v for k, v in IDS.items() if v["lms"] == "moodle"}))
    code, _, err, csv_path = course(capsys, "--format", "canvas", "--assignment", A)
    assert code == 2 and "no student could be matched for Canvas's import" in err
    assert "none has a Canvas user id" in err and not csv_path.exists()


def test_an_empty_gradebook_is_said_so(course, capsys, monkeypatch):
    monkeypatch.setattr(lms, "gradebook_scores", lambda db_url=None: ({}, {}))
    code, _, err, _ = course(capsys, "--format", "canvas")
    assert code == 2 and "the gradebook holds no grades yet" in err
