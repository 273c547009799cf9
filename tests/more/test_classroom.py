"""Grading a class: parallel, resumable, crash-safe, through Dask; collect, feedback, export, report."""

import csv
import hashlib
import json
import os
import signal
import subprocess
import time
import zipfile

import pytest

from autograder.engine import grading

from helpers import PY, ROOT, run_cli, write_student

CLASS_RUNNER = grading.new_sandbox(for_a_class=True)  # a handle: its root starts on first use

ZOO = ROOT / "tests" / "zoo" / "Square"
A = "01_square"
pytestmark = pytest.mark.xdist_group("classroom")


def make_class(home, students):
    """students: name -> answer source for Square (None = correct, "stub" = unfilled release)."""
    paths = {}
    for name, answer in students.items():
        target = home / "submitted" / name / A / f"{A}.ipynb"
        if answer == "stub":
            write_student(target, A, fill=False)
        else:
            write_student(target, A, None if answer is None else {"Square": answer})
        paths[name] = target
    return paths


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def gradebook_scores(db_url=None):
    from autograder.classroom.autograde import GradebookWriter

    return {(r["student"], r["assignment"]): r["score"] for r in GradebookWriter(db_url).scores()
            if r["assignment"] == A}


def test_parallel_autograde_resume_and_regrade(grading_home):
    from autograder.classroom import autograde as classroom

    wrong = (ZOO / "ctx_attribute.py").read_text()
    paths = make_class(grading_home, {"ada": None, "alan": wrong, "grace": "stub"})
    hashes = {k: sha(p) for k, p in paths.items()}

    first = classroom.autograde(CLASS_RUNNER, workers=2, assignment=A, progress=False)
    assert len(first.graded) == 3 and first.skipped == 0
    scores = gradebook_scores()
    assert scores == {("ada", A): 3.0, ("alan", A): 2.0, ("grace", A): 0.0}
    assert {k: sha(p) for k, p in paths.items()} == hashes, "submissions must never be modified"

    again = classroom.autograde(CLASS_RUNNER, workers=2, assignment=A, progress=False)
    assert len(again.graded) == 0 and again.skipped == 3, "unchanged submissions are not regraded"

    write_student(paths["grace"], A)  # grace hands in a fixed notebook
    third = classroom.autograde(CLASS_RUNNER, workers=2, assignment=A, progress=False)
    assert [r["student"] for r in third.graded] == ["grace"]
    assert gradebook_scores()[("grace", A)] == 3.0
    assert gradebook_scores()[("ada", A)] == 3.0


def test_faulty_submissions_are_recorded_and_the_batch_goes_on(grading_home):
    from autograder.classroom import autograde as classroom
    from autograder.engine.sandbox import Limits

    loop = ("class Square(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        while True:\n            pass\n\n    @staticmethod\n    def backward(ctx, g):\n        return g\n")
    make_class(grading_home, {"ada": None, "looper": loop, "quitter": "import os\nos._exit(0)\n"})
    corrupt = grading_home / "submitted" / "corrupt" / A / f"{A}.ipynb"
    corrupt.parent.mkdir(parents=True)
    corrupt.write_bytes(b"\x00\x01 not json")
    renamed = grading_home / "submitted" / "renamer" / A / "Copy of my work.ipynb"
    write_student(renamed, A)
    (grading_home / "submitted" / "absent" / A).mkdir(parents=True)

    result = classroom.autograde(CLASS_RUNNER, workers=2, assignment=A, progress=False,
                                 limits=Limits(seconds_per_test=4))
    by_student = {r["student"]: r for r in result.graded}
    assert by_student["ada"]["score"] == 3
    assert by_student["renamer"]["score"] == 3, "a renamed file is graded by its content"
    assert by_student["looper"]["score"] == 0
    assert {c["status"] for c in by_student["looper"]["cells"]} == {"timeout"}
    assert by_student["quitter"]["score"] == 0
    assert "process running your code" in by_student["quitter"]["cells"][0]["feedback"]
    assert by_student["corrupt"]["score"] == 0
    assert "not a notebook" in by_student["corrupt"]["cells"][0]["feedback"]
    assert [p["student"] for p in result.problems] == ["absent"]
    assert "no notebook" in result.problems[0]["reason"]
    assert json.loads((grading_home / "problems.json").read_text())[0]["status"] == "missing"
    assert gradebook_scores()[("ada", A)] == 3.0


def test_killed_batch_resumes_without_loss_or_double_counting(grading_home):
    wrong = (ZOO / "wrong_derivative.py").read_text()
    students = {f"s{i}": (None if i % 2 == 0 else wrong) for i in range(6)}
    make_class(grading_home, students)
    env = dict(os.environ, AUTOGRADER_HOME=str(grading_home))
    proc = subprocess.Popen([PY, "-m", "autograder", "autograde", "--workers", "1", "--assignment", A,
                             "--quiet"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    markers = lambda: list((grading_home / "autograded").glob(f"*/{A}/*.grade.json"))  # noqa: E731
    while len(markers()) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # the grader and its sandbox, mid-batch
    proc.wait()
    done_before = len(markers())
    assert 1 <= done_before < 6

    rerun = run_cli("autograde", "--workers", "2", "--assignment", A, "--quiet", env={"AUTOGRADER_HOME": str(grading_home)})
    assert rerun.returncode == 0, rerun.stderr
    assert f"{done_before} already up to date" in rerun.stdout
    assert len(markers()) == 6
    from nbgrader.api import Gradebook

    from autograder.classroom.autograde import GradebookWriter

    with Gradebook(GradebookWriter().db_url) as gb:
        subs = gb.assignment_submissions(A)
        assert sorted(s.student_id for s in subs) == sorted(students)
        assert {s.student_id: s.score for s in subs} == {k: (3.0 if v is None else 2.0) for k, v in students.items()}


def test_dask_scheduler_with_two_worker_processes(grading_home):
    distributed = pytest.importorskip("distributed")
    from autograder.classroom import autograde as classroom

    make_class(grading_home, {"ada": None, "alan": (ZOO / "ignores_grad_output.py").read_text()})
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        result = classroom.autograde(CLASS_RUNNER, scheduler=cluster.scheduler_address, assignment=A, progress=False)
    assert {r["student"]: r["score"] for r in result.graded} == {"ada": 3.0, "alan": 2.0}
    assert gradebook_scores() == {("ada", A): 3.0, ("alan", A): 2.0}


def test_collect_folder_and_lms_zip(grading_home, tmp_path):
    from autograder.classroom import layouts

    folder = tmp_path / "downloads"
    write_student(folder / "jdoe_12345_67890_01_square.ipynb", A)
    write_student(folder / "mroe" / "whatever name.ipynb", A)
    (folder / "notes.txt").write_text("not a notebook")
    collected = layouts.collect(folder)
    assert sorted(s.student for s in collected) == ["jdoe", "mroe"]
    assert (grading_home / "submitted" / "jdoe" / A / f"{A}.ipynb").exists()

    archive = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(folder / "jdoe_12345_67890_01_square.ipynb", "kim_1_2_01_square.ipynb")
    assert [s.student for s in layouts.collect(archive)] == ["kim"]
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../escape.ipynb", "{}")
    log = layouts.CollectLog()
    assert layouts.collect(evil, log=log) == []
    assert log.refused == ["evil.zip: ../escape.ipynb: not unpacked, its path leaves the download's folder"]


def test_feedback_export_and_report(grading_home):
    from html import escape

    from autograder.classroom import class_report, gradebook, autograde as classroom
    from autograder.engine import mistakes

    paths = make_class(grading_home, {"ada": None, "alan": (ZOO / "ctx_attribute.py").read_text()})
    # What nbgrader's exchange leaves beside a submission must reach the graded folder (release_feedback needs it).
    (paths["ada"].parent / "timestamp.txt").write_text("2026-11-30 12:00:00.000000 UTC")
    (paths["ada"].parent / "submission_secret.txt").write_text("s3cret")
    classroom.autograde(CLASS_RUNNER, workers=1, assignment=A, progress=False)
    graded = grading_home / "autograded" / "ada" / A
    assert (graded / "timestamp.txt").read_text().startswith("2026-11-30")
    assert (graded / "submission_secret.txt").read_text() == "s3cret"
    pages = gradebook.feedback()
    alan = next(p for p in pages if "alan" in p.parts)
    text = alan.read_text()
    assert "save_for_backward" in text, "feedback names the mistake"
    assert "saves_input(" not in text and "gradcheck(Square)" not in text, "hidden tests never reach students"
    rows = list(csv.DictReader(open(gradebook.export_csv())))
    scores = {r["student_id"]: float(r["score"]) for r in rows if r["assignment"] == A}
    assert scores == {"ada": 3.0, "alan": 2.0}
    report = class_report.write(classroom.reports())
    html = report.read_text()
    assert "Score distribution" in html and "not-saved-for-backward" in html and "data:image/png" in html
    assert escape(mistakes.meaning("not-saved-for-backward")) in html, "each mistake code comes with its meaning"


@pytest.mark.parametrize("command", [["autograde", "--quiet"], ["collect", "."], ["export"]])
def test_an_unknown_assignment_is_refused_not_graded_as_nothing(grading_home, command):
    """`autograde --assignment 99_nope` graded nothing and exited 0: a typo looked like an empty class."""
    make_class(grading_home, {"ada": None})
    done = run_cli(*command, "--assignment", "99_nope", cwd=grading_home / "submitted",
                   env={"AUTOGRADER_HOME": str(grading_home)})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "'99_nope' is not an assignment of this course" in done.stderr and A in done.stderr
    assert not (grading_home / "autograded").exists()
    near = run_cli("autograde", "--quiet", "--assignment", "01_squar", env={"AUTOGRADER_HOME": str(grading_home)})
    assert near.returncode == 2 and "did you mean 01_square?" in near.stderr


def test_a_class_is_graded_heaviest_notebook_first():
    """The submissions whose notebooks have the most test cells go to the workers first, each group in the order
    found: the last ones a worker takes are short, so no worker idles long while another finishes."""
    from pathlib import Path

    from autograder.classroom import autograde
    from autograder.classroom.submissions import HandIn
    from autograder.engine import notebooks

    sources = notebooks.sources()
    tests = {s.assignment: len(s.grade_ids("test")) for s in sources}
    todo = [HandIn(student, assignment, Path(f"{assignment}.ipynb"), assignment)
            for student in ("ada", "alan") for assignment in ("00_when_to_write_one", "15_debugging", "03_shapes")]
    order = autograde.heaviest_first(todo, sources)
    assert [tests[s.assignment] for s in order] == sorted((tests[s.assignment] for s in todo), reverse=True)
    assert [s.student for s in order if s.assignment == "15_debugging"] == ["ada", "alan"]
    assert sorted(order, key=lambda s: s.key) == sorted(todo, key=lambda s: s.key)


def test_the_gradebooks_of_one_process_share_one_engine(tmp_path):
    """nbgrader opens a new engine for each Gradebook; the writer's share one per database, so SQLAlchemy compiles
    each statement once, and a Gradebook closed (its engine disposed) leaves the next one working."""
    from nbgrader.api import Gradebook

    from autograder.classroom.gradebook import GradebookWriter

    writer = GradebookWriter(f"sqlite:///{tmp_path / 'gradebook.db'}")
    with Gradebook(writer.db_url) as first:
        first.update_or_create_assignment("01_square")
        engine = first.engine
    with Gradebook(writer.db_url) as second:
        assert second.engine is engine
        assert [a.name for a in second.assignments] == ["01_square"]
    with Gradebook(f"sqlite:///{tmp_path / 'other.db'}") as other:
        assert other.engine is not engine
