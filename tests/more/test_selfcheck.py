"""The self-check cell grades the notebook being run, also in a renamed copy or a JupyterLab "Duplicate", whose
cell still names the original ("01_square.ipynb"): the notebook is found by content, as `grade` finds its course
notebook, and the session path Jupyter gives the kernel wins when it names a copy of the same notebook."""

import os
import shutil

import pytest

from autograder import selfcheck
from autograder.paths import COURSE

SQUARE = COURSE / "01_square" / "01_square.ipynb"
SHAPES = COURSE / "03_shapes" / "03_shapes.ipynb"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    return tmp_path


def saved(path, source, mtime):
    shutil.copy(source, path)
    os.utime(path, (mtime, mtime))
    return path.resolve()


def test_a_renamed_copy_is_found_by_its_content(folder):
    copy = saved(folder / "my attempt.ipynb", SQUARE, 1_000)
    saved(folder / "shapes.ipynb", SHAPES, 2_000)                  # another course notebook: not this one
    assert selfcheck.find_notebook("01_square.ipynb") == copy


def test_a_duplicate_beside_the_original_is_graded_when_the_kernel_runs_it(folder):
    original = saved(folder / "01_square.ipynb", SQUARE, 2_000)
    duplicate = saved(folder / "01_square-Copy1.ipynb", SQUARE, 1_000)
    assert selfcheck.find_notebook("01_square.ipynb", session=str(duplicate)) == duplicate
    assert selfcheck.find_notebook("01_square.ipynb", session=str(original)) == original
    os.environ["JPY_SESSION_NAME"] = str(duplicate)                 # what jupyter_server gives the kernel
    try:
        assert selfcheck.find_notebook("01_square.ipynb") == duplicate
    finally:
        del os.environ["JPY_SESSION_NAME"]


def test_without_a_session_the_copy_saved_last_is_graded(folder):
    original = saved(folder / "01_square.ipynb", SQUARE, 1_000)
    duplicate = saved(folder / "01_square-Copy1.ipynb", SQUARE, 2_000)
    assert selfcheck.find_notebook("01_square.ipynb") == duplicate
    os.utime(original, (3_000, 3_000))
    assert selfcheck.find_notebook("01_square.ipynb") == original


def test_a_session_of_another_notebook_or_a_stale_one_is_not_used(folder):
    original = saved(folder / "01_square.ipynb", SQUARE, 1_000)
    shapes = saved(folder / "scratch.ipynb", SHAPES, 2_000)
    assert selfcheck.find_notebook("01_square.ipynb", session=str(shapes)) == original
    assert selfcheck.find_notebook("01_square.ipynb", session=str(folder / "renamed-away.ipynb")) == original
    assert selfcheck.find_notebook("01_square.ipynb", session="5f1c-a-session-id") == original


def test_no_copy_of_the_notebook_is_a_clear_error(folder):
    saved(folder / "shapes.ipynb", SHAPES, 1_000)
    (folder / "broken.ipynb").write_text("{not json")
    with pytest.raises(FileNotFoundError, match="no notebook in .* comes from 01_square"):
        selfcheck.find_notebook("01_square.ipynb")


def test_a_name_that_is_no_course_notebook_is_graded_as_named(folder):
    own = saved(folder / "my_own.ipynb", SQUARE, 1_000)
    assert selfcheck.find_notebook("my_own.ipynb") == own
    with pytest.raises(FileNotFoundError, match="not found"):
        selfcheck.find_notebook("missing.ipynb")


@pytest.mark.slow
def test_the_self_check_grades_a_renamed_copy(folder, capsys):
    saved(folder / "my attempt.ipynb", SQUARE, 1_000)
    report = selfcheck.grade_this_notebook("01_square.ipynb", show=False)
    assert "grading my attempt.ipynb" in capsys.readouterr().out
    assert report["notebook"] and report["max_score"] > 0 and report["score"] == 0   # the unfilled release


def test_without_fork_the_self_check_grades_a_preview_in_process(tmp_path, monkeypatch, capsys):
    """Windows without WSL has no os.fork: the self-check grades in a plain process of its own and says, in one
    sentence, that it is a preview; a wrong answer still loses its points."""
    import os

    from helpers import write_student

    right = write_student(tmp_path / "right" / "01_square.ipynb", "01_square")
    wrong = write_student(tmp_path / "wrong" / "01_square.ipynb", "01_square",
                          {"Square": "class Square(torch.autograd.Function):\n"
                                     "    @staticmethod\n    def forward(ctx, x):\n        return x * x\n"
                                     "    @staticmethod\n    def backward(ctx, g):\n        return g\n"})
    monkeypatch.delattr(os, "fork")
    monkeypatch.chdir(tmp_path / "right")
    report = selfcheck.grade_this_notebook(str(right), show=False)
    assert report["score"] == report["max_score"] == 3
    assert report["notes"][0] == selfcheck.NO_FORK_NOTE
    monkeypatch.chdir(tmp_path / "wrong")
    report = selfcheck.grade_this_notebook(str(wrong), show=False)
    assert report["score"] < 3 and any(c["status"] == "failed" for c in report["cells"])
    assert selfcheck.NO_FORK_NOTE in selfcheck._text(report)


# ------------------------------------------------------------------------------ the kernel's warm grading root
# A "kernel" here is a Python process of its own that imports the self-check, as a notebook's kernel does.

KERNEL = """
import json, sys
from autograder import selfcheck
reports, roots = [], []
for path in sys.argv[1:]:
    reports.append(selfcheck.grade_this_notebook(path, show=False))
    roots.append(selfcheck.grading_root())
print(json.dumps({"reports": reports, "roots": roots}), flush=True)
sys.stdin.read()  # the kernel's session goes on until told
"""
TIMINGS = ("seconds", "memory_mb", "phases", "check_seconds", "round_trips")


def _without_timings(report: dict) -> dict:
    """The report but its timings and the name of each grading's own memory group."""
    isolation = dict(report["isolation"], memory_cgroup=bool(report["isolation"].get("memory_cgroup")))
    return dict(report, seconds=None, isolation=isolation,
                cells=[{k: v for k, v in c.items() if k not in TIMINGS} for c in report["cells"]])


def _kernel(*notebooks):
    import json
    import subprocess
    import sys

    kernel = subprocess.Popen([sys.executable, "-c", KERNEL, *map(str, notebooks)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    return kernel, json.loads(kernel.stdout.readline())


def _gone(pid: int, waiting: float = 120.0) -> bool:
    """Whether process `pid` ends (or is a zombie nobody reaped) within `waiting` seconds."""
    import time

    deadline = time.monotonic() + waiting
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rpartition(")")[2].split()[0] in ("Z", "X"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.2)
    return False


def test_a_second_self_check_reuses_the_kernels_grading_root_and_grades_as_a_cold_one(tmp_path, grading_home):
    """The first self-check starts the kernel's grading root; the next ones (another notebook too) are graded by
    it, and each report is the one a cold `python -m autograder grade` gives, timings aside."""
    import json
    import subprocess
    import sys

    from helpers import write_student

    right = write_student(tmp_path / "right" / "01_square.ipynb", "01_square")
    wrong = write_student(tmp_path / "wrong" / "01_square.ipynb", "01_square",
                          {"Square": "class Square(torch.autograd.Function):\n"
                                     "    @staticmethod\n    def forward(ctx, x):\n        return x * x\n"
                                     "    @staticmethod\n    def backward(ctx, g):\n        return g\n"})
    shapes = write_student(tmp_path / "shapes" / "03_shapes.ipynb", "03_shapes")
    kernel, seen = _kernel(right, wrong, shapes, right)
    try:
        assert seen["roots"][0] is not None and len(set(seen["roots"])) == 1, seen["roots"]
        for path, report in zip((right, wrong, shapes, right), seen["reports"]):
            cold = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--json"],
                                  capture_output=True, text=True, check=True)
            assert _without_timings(report) == _without_timings(json.loads(cold.stdout)), path
        assert seen["reports"][0]["score"] == 3 > seen["reports"][1]["score"]
    finally:
        kernel.kill()
        kernel.wait()


@pytest.mark.parametrize("ending", ["exits", "is killed"])
def test_the_kernels_grading_root_ends_with_the_kernel(tmp_path, grading_home, ending):
    from helpers import write_student

    kernel, seen = _kernel(write_student(tmp_path / "01_square.ipynb", "01_square"))
    root = seen["roots"][0]
    assert root is not None and not _gone(root, waiting=0.5)
    if ending == "exits":
        kernel.stdin.close()  # the session's end: the kernel exits (atexit)
    else:
        kernel.kill()
    kernel.wait()
    assert _gone(root), f"the grading root {root} outlived its kernel"



# An answer that leaves what it can behind (a changed torch, a marker in every folder it may write), then one that
# is right only where nothing was left: a warm root grades each self-check from a fresh copy.
FOLDERS = "('.', os.path.expanduser('~'), '/tmp', '/dev/shm', '/var/tmp')"
POISON = """import os, torch
torch.left_behind = True
torch.Tensor.__mul__ = lambda a, b: torch.zeros(())
for folder in {folders}:
    try:
        open(os.path.join(folder, {marker!r}), 'w').close()
    except OSError:
        pass
"""
PROBE = """import os, torch
left = hasattr(torch, 'left_behind') or not bool((torch.ones(2) * torch.ones(2) == 1).all()) or any(
    os.path.exists(os.path.join(folder, {marker!r})) for folder in {folders})

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x + (1.0 if left else 0.0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
"""


def test_one_self_check_leaves_nothing_for_the_next(tmp_path, grading_home):
    from helpers import SQUARE, write_student

    marker = f"left-behind-by-{tmp_path.name}"
    poison = write_student(tmp_path / "poison" / "01_square.ipynb", "01_square",
                           {"Square": POISON.format(folders=FOLDERS, marker=marker) + SQUARE})
    probe = write_student(tmp_path / "probe" / "01_square.ipynb", "01_square",
                          {"Square": PROBE.format(folders=FOLDERS, marker=marker)})
    kernel, seen = _kernel(poison, probe, poison, probe)
    try:
        assert len(set(seen["roots"])) == 1
        assert seen["reports"][0]["score"] < 3                      # the poison broke its own answer
        assert [r["score"] for r in seen["reports"][1::2]] == [3, 3], seen["reports"][1]
    finally:
        kernel.kill()
        kernel.wait()
        for folder in (os.path.expanduser("~"), "/tmp", "/dev/shm", "/var/tmp"):
            if os.path.exists(os.path.join(folder, marker)):
                os.remove(os.path.join(folder, marker))


def test_the_kernels_root_runs_the_warm_ups_its_notebooks_tests_ask_for():
    """Read from the course notebook's plain JSON before nbformat is imported (the root starts meanwhile): the same
    warm-ups as its test cells, read as the grader reads them, ask for; none for a name that is no course notebook."""
    from autograder.engine import grading, notebooks
    from autograder.engine.sandbox import warm

    for source in notebooks.sources():
        tests = [text for _, _, text in grading.plan(source, None)[1]]
        assert selfcheck._warm_ups_of(source.name) == tuple(warm.needed(tests)), source.name
    assert "opcheck" in selfcheck._warm_ups_of("11_compile_and_export")
    assert "opcheck" not in selfcheck._warm_ups_of("01_square")
    assert selfcheck._warm_ups_of("my_own") == selfcheck._warm_ups_of("../../etc/passwd") == ()


@pytest.mark.parametrize("session, stem", [
    ("/home/learner/01_square.ipynb", "01_square"), ("01_square-Copy1.ipynb", "01_square"),
    ("10b_forward_mode.ipynb", "10b_forward_mode"), ("notes.ipynb", ""), (None, ""), ("", "")])
def test_the_root_started_ahead_is_warmed_for_the_course_notebook_the_session_names(session, stem):
    assert selfcheck._course_stem(session) == stem


def test_no_root_is_started_ahead_outside_a_jupyter_kernel(monkeypatch):
    """pytest is no kernel (even with ipykernel imported), nor is nbgrader's run, nor a kernel told not to."""
    import ipykernel  # noqa: F401 - imported, as in a process that merely has it

    monkeypatch.delitem(selfcheck._WARM, "warm_ups", raising=False)
    assert selfcheck.start_root_ahead("01_square.ipynb") is False
    monkeypatch.setattr(selfcheck, "_in_a_jupyter_kernel", lambda: True)
    for variable in ("NBGRADER_EXECUTION", "AUTOGRADER_EARLY_ROOT"):
        with monkeypatch.context() as told:
            told.setenv(variable, "0" if variable == "AUTOGRADER_EARLY_ROOT" else "autograde")
            assert selfcheck.start_root_ahead("01_square.ipynb") is False
    assert "warm_ups" not in selfcheck._WARM
