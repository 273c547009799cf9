"""A download is the students' data: no file name, byte count, link or nesting in it is trusted. Each hostile
file is refused or skipped with a sentence naming it, and everyone else is collected (and graded)."""

import io
import os
import zipfile

import pytest

from helpers import write_student

A = "01_square"


def zip_of(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def collected(source, **kwargs):
    from autograder.classroom import layouts

    log = layouts.CollectLog()
    found = {f"{s.student}/{s.assignment}": s.path.read_bytes() for s in layouts.collect(source, log=log, **kwargs)}
    return found, log


def answer(tmp_path, name="a.ipynb", fill=True):
    return write_student(tmp_path / "src" / name, A, fill=fill).read_bytes()


@pytest.mark.parametrize("forged", [
    "_bob_attempt_2099-12-31-23-59-59_01_square.ipynb",       # the LMS part seems to end in her own file name
    "_bob_attempt_2099-12-31-23-59-59.ipynb",
    "x_bob_attempt_2099-12-31-23-59-59_Bob Roe_9_assignsubmission_file_01_square.ipynb",
    "bob_attempt_2099-12-31-23-59-59_01_square.ipynb",
])
def test_a_blackboard_file_name_cannot_name_another_student(grading_home, tmp_path, forged):
    answered, blank = answer(tmp_path), answer(tmp_path, "b.ipynb", fill=False)
    download = zip_of(tmp_path / "bb.zip", {
        "Week 1_bob_attempt_2024-01-01-12-00-00_01_square.ipynb": answered,
        f"Week 1_mallory_attempt_2024-01-01-13-00-00_{forged}": blank})
    found, _ = collected(download)
    assert found[f"bob/{A}"] == answered, "bob keeps his own submission"
    assert found[f"mallory/{A}"] == blank, "mallory's file is hers"


@pytest.mark.parametrize("name, why", [
    (".._x.ipynb", "gives no student id"),
    ("._x.ipynb", "gives no student id"),
    ("..", None),  # a folder named ".." (written as a path below): leaves the folder
    ("x" * 300 + "_1_2_01_square.ipynb", "longer than 255 bytes"),
    ("a" * 200 + "_01_square.ipynb", "longer than 128 bytes"),
])
def test_a_name_that_is_no_student_is_refused_and_the_class_collected(grading_home, tmp_path, name, why):
    good = answer(tmp_path)
    member = "../x/01_square.ipynb" if name == ".." else name
    found, log = collected(zip_of(tmp_path / "d.zip", {member: good, "kim_1_2_01_square.ipynb": good}))
    assert list(found) == [f"kim/{A}"]
    assert len(log.refused) == 1 and (why or "leaves the download's folder") in log.refused[0], log.refused
    assert sorted(p.name for p in (grading_home / "submitted").iterdir()) == ["kim"]
    assert not list(grading_home.glob("*.ipynb")) and not list(tmp_path.glob("*/01_square.ipynb"))


def test_a_zip_bomb_stops_while_streaming(grading_home, tmp_path):
    """Members that inflate a thousandfold are refused after their first MB or so, whatever their headers say."""
    good = answer(tmp_path)
    bomb = b"{" + b" " * (50 << 20) + b"}"   # 50 MB of JSON, about 50 KB deflated
    archive = zip_of(tmp_path / "bomb.zip", {**{f"p{i}_1_2_01_square.ipynb": bomb for i in range(4)},
                                             "kim_1_2_01_square.ipynb": good})
    assert archive.stat().st_size < 1 << 20
    found, log = collected(archive)
    assert list(found) == [f"kim/{A}"]
    assert len(log.refused) == 4 and all("inflates more than 100 times" in s for s in log.refused), log.refused


def test_a_lying_header_does_not_get_past_the_caps(grading_home, tmp_path, monkeypatch):
    """The size a header claims is never used: a member declaring 10 bytes but holding 3 MB is stopped at the cap."""
    monkeypatch.setenv("AUTOGRADER_MAX_SUBMISSION_MB", "1")
    good = answer(tmp_path)
    raw = os.urandom(3 << 20).hex().encode()[: 3 << 20]  # incompressible: passes the ratio, not the cap
    archive = zip_of(tmp_path / "big.zip", {"big_1_2_01_square.ipynb": raw, "kim_1_2_01_square.ipynb": good})
    found, log = collected(archive)
    assert list(found) == [f"kim/{A}"]
    assert "unpacks to more than 1 MB" in log.refused[0], log.refused


def test_a_download_over_the_total_cap_is_refused_past_it(grading_home, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_MAX_UNPACKED_MB", "0.05")
    good = answer(tmp_path)
    names = [f"s{i:02d}_1_2_01_square.ipynb" for i in range(20)]
    found, log = collected(zip_of(tmp_path / "class.zip", {n: good for n in names}))
    assert 0 < len(found) < 20 and len(found) + len(log.refused) == 20
    assert all("AUTOGRADER_MAX_UNPACKED_MB" in s for s in log.refused), log.refused


def test_a_folder_is_read_without_following_links(grading_home, tmp_path):
    from autograder import paths

    folder = tmp_path / "download"
    good = write_student(folder / "kim" / "01_square.ipynb", A).read_bytes()
    (folder / "mallory").mkdir()
    (folder / "mallory" / "01_square.ipynb").symlink_to(paths.SOLUTIONS / A / f"{A}.ipynb")
    (folder / "eve").symlink_to(paths.SOLUTIONS / A)                 # a linked folder
    os.mkfifo(folder / "fifo_01_square.ipynb")                        # never opened: it would block
    found, log = collected(folder)
    assert found == {f"kim/{A}": good}
    assert len(log.refused) == 3 and sum("symbolic link" in s for s in log.refused) == 2, log.refused


def test_a_zip_symlink_member_is_refused(grading_home, tmp_path):
    good = answer(tmp_path)
    info = zipfile.ZipInfo("mallory_1_2_01_square.ipynb")
    info.external_attr = (0o120777 << 16)
    archive = tmp_path / "links.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(info, "/work/solutions/01_square/01_square.ipynb")
        z.writestr("kim_1_2_01_square.ipynb", good)
    found, log = collected(archive)
    assert list(found) == [f"kim/{A}"] and "symbolic link" in log.refused[0]


def test_collect_in_a_pipe_names_each_refusal_and_exits_1(grading_home, tmp_path):
    import subprocess
    import sys

    good = answer(tmp_path)
    archive = zip_of(tmp_path / "d.zip", {".._x.ipynb": good, "kim_1_2_01_square.ipynb": good})
    run = subprocess.run([sys.executable, "-m", "autograder", "collect", str(archive)], capture_output=True,
                         text=True, env={**os.environ, "AUTOGRADER_HOME": str(grading_home)}, timeout=300)
    assert run.returncode == 1, run.stderr
    assert "collected 1 notebooks from 1 students" in run.stdout
    assert "left out: .._x.ipynb: not collected, its name gives no student id" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_copy_a_student_meant_is_collected_and_named(grading_home, tmp_path):
    """Canvas and Moodle downloads with a blank JupyterLab duplicate beside the answered file: the answered one is
    collected, whichever sorts last by name, and collect names both files and why."""
    answered, blank = answer(tmp_path), answer(tmp_path, "b.ipynb", fill=False)
    for files in ({"hoppergrace_105_9006_01_square.ipynb": answered,
                   "hoppergrace_105_9007_01_square-Copy1.ipynb": blank},
                  {"Grace Hopper_105_assignsubmission_file/01_square.ipynb": answered,
                   "Grace Hopper_105_assignsubmission_file/Copy1-01_square.ipynb": blank}):
        for path in list((grading_home / "submitted").glob("*/*/*")) if (grading_home / "submitted").exists() else []:
            path.unlink()
        found, log = collected(zip_of(tmp_path / "d.zip", files))
        assert list(found.values()) == [answered], log.chosen
        text = "\n".join(log.chosen)
        first, second = files
        assert f"- {first} (the notebook 01_square, 1 of 1 answer cells filled in): chosen (the copy with the most " \
               "answer cells filled in)." in text, text
        assert f"- {second} (the notebook 01_square, 0 of 1 answer cells filled in): not chosen (fewer answers " \
               f"than {first})." in text or f"- {second} (the notebook 01_square, without answer cells)" in text, text


def test_the_exchange_path_chooses_by_the_same_rule(grading_home, tmp_path):
    """nbgrader's exchange puts a student's whole folder in submitted/: a blank 01_square.ipynb beside the
    answered copy is not graded, and the record names both files."""
    from autograder.classroom.submissions import discover
    from autograder.engine import notebooks

    folder = grading_home / "submitted" / "ada" / A
    write_student(folder / "01_square.ipynb", A, fill=False)
    answered = write_student(folder / "01_square-Copy1.ipynb", A)
    subs, problems = discover(notebooks.sources(), A)
    assert [s.path for s in subs] == [answered]
    (chosen,) = [p for p in problems if p["status"] == "chosen"]
    assert "01_square-Copy1.ipynb (the notebook 01_square, 1 of 1 answer cells filled in): chosen (the copy with " \
           "the most answer cells filled in)" in chosen["reason"]
    assert "01_square.ipynb (the notebook 01_square, 0 of 1 answer cells filled in): not chosen" in chosen["reason"]


def test_a_gradescope_upload_is_read_without_following_links(tmp_path):
    from autograder import paths
    from autograder.classroom import gradescope

    upload = tmp_path / "submission"
    mine = write_student(upload / "mine.ipynb", A)
    (upload / "solution.ipynb").symlink_to(paths.SOLUTIONS / A / f"{A}.ipynb")
    (upload / "all").symlink_to(paths.SOLUTIONS)
    assert gradescope.candidates(upload) == [mine]


def test_members_that_collide_are_refused_not_fatal(grading_home, tmp_path):
    """A member named like an earlier one, or under a name an earlier member holds as a file."""
    good, other = answer(tmp_path), answer(tmp_path, "b.ipynb", fill=False)
    archive = tmp_path / "odd.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("kim_1_2_01_square.ipynb", good)
        with pytest.warns(UserWarning, match="Duplicate name"):
            z.writestr("kim_1_2_01_square.ipynb", other)
        z.writestr("kim_1_2_01_square.ipynb/x.ipynb", other)
        z.writestr("lee_3_4_01_square.ipynb", good)
    found, log = collected(archive)
    assert found == {f"kim/{A}": good, f"lee/{A}": good}
    assert len(log.refused) == 2 and "another file of that name" in log.refused[0], log.refused


@pytest.mark.parametrize("roster", [
    [{"First name": "Jane", "Last name": "Roe", "Email address": "j@x.edu"}],
    [{"Full name": "Jane Roe", "Email address": "j@x.edu"}],
])
@pytest.mark.parametrize("folder_name", ["Jane Roe", "Roe Jane"])
def test_moodle_names_match_the_roster_in_either_order(roster, folder_name):
    from autograder.classroom.layouts import name_id
    from autograder.classroom.lms_moodle import moodle_rows

    student = name_id(folder_name)
    rows, skipped = moodle_rows({student: {A: 3.0}}, {A: 3.0}, {student: {"name": folder_name}}, roster)
    assert skipped == [] and rows[1] == ["Jane", "Roe", "", "j@x.edu", "3"]


def test_moodle_namesakes_are_refused_by_name():
    from autograder.classroom.lms_moodle import moodle_rows

    roster = [{"First name": "Kim", "Last name": "Lee", "Email address": "a@x.edu"},
              {"First name": "Kim", "Last name": "Lee", "Email address": "b@x.edu"}]
    rows, skipped = moodle_rows({"kim-lee": {A: 3.0}}, {A: 3.0}, {"kim-lee": {"name": "Kim Lee"}}, roster)
    assert rows[1:] == [] and skipped == ["kim-lee (Kim Lee): the roster has 2 people of that name, so the grade "
                                          "cannot go to one of them by name (enter it in Moodle by hand)"]
