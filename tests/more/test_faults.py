"""Faults in one notebook: each ends, within a bounded time, as a clear reason recorded for that notebook
(a status and plain feedback in its report, or a NotebookError for files that are not gradable), and the
sandbox goes on grading the next notebook normally. Batch-level faults (a worker dying, a full disk) are
tested with the classroom."""

from __future__ import annotations

import json
import os
import signal
import time

import nbformat
import pytest

from autograder.engine import grading, notebooks
from autograder.maintain import samples
from autograder.engine.sandbox import Limits
from helpers import SQUARE

pytestmark = pytest.mark.xdist_group("faults")

ASSIGNMENT = "01_square"
FAST = Limits(seconds_per_test=6, memory_mb=600)
SLACK = 20  # seconds of fork, setup and reporting allowed on top of the time limit, on a loaded machine


@pytest.fixture(scope="session")
def faults_sandbox():
    with grading.new_sandbox() as box:
        yield box


def grade(sandbox, answer: str, limits: Limits = FAST, name: str = "01_square.ipynb"):
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": answer})
    start = time.monotonic()
    report, _ = grading.grade_text(nbformat.writes(nb), name, sandbox, limits=limits)
    return report, time.monotonic() - start


def run_graded(sandbox, answer: str, test: str = "from autograder.checks import square as check\n"
                                                     "check.values(Square)\n", limits: Limits = FAST):
    """The notebook's Graded (one test cell) and how long it took."""
    start = time.monotonic()
    graded = sandbox.run([("setup:setup_1", "import torch\n"), ("answer_Square", answer)],
                         [("test_Square_values", test)], 0, limits)
    return graded, time.monotonic() - start


def run_one(sandbox, answer: str, test: str = "from autograder.checks import square as check\n"
                                                  "check.values(Square)\n", limits: Limits = FAST):
    graded, seconds = run_graded(sandbox, answer, test, limits)
    return graded.outcomes[0], seconds


# name, answer cell, expected status of every test, a phrase of the feedback
FAULTS = [
    ("infinite-loop-in-forward", SQUARE + "\n_f = Square.forward\ndef forward(ctx, x):\n    while True:\n"
     "        pass\nSquare.forward = staticmethod(forward)\n", "timeout", "time limit exceeded"),
    ("infinite-loop-in-answer-cell", "while True:\n    pass\n" + SQUARE, "error", "time limit exceeded in this cell"),
    ("os-exit", "import os\nos._exit(3)\n" + SQUARE, "error", "exited with code 3"),
    ("os-exit-zero-during-the-test", SQUARE + "\nimport os\nSquare.forward = staticmethod(lambda ctx, x: os._exit(0))\n",
     "error", "exited with code 0"),
    ("kill-itself", "import signal\nsignal.raise_signal(signal.SIGKILL)\n" + SQUARE, "error", "killed by signal 9"),
    ("segfault", "import faulthandler\nfaulthandler.disable()\nfaulthandler._sigsegv()\n" + SQUARE, "error",
     "killed by signal 11"),
    ("kill-with-os-kill", "import os\nos.kill(os.getpid(), 9)\n" + SQUARE, "error", "killed by signal 9"),
    ("crash-via-ctypes", "import ctypes\nctypes.string_at(0)\n" + SQUARE, "error", "killed by signal 11"),
    ("memory-bomb-python", "blob = bytearray(8 * 1024 ** 3)\n" + SQUARE, "error", "memory"),
    ("memory-bomb-torch", SQUARE + "\n_f = Square.forward\ndef forward(ctx, x):\n"
     "    hog = [torch.ones(256, 1024, 1024) for _ in range(64)]\n    return _f(ctx, x)\n"
     "Square.forward = staticmethod(forward)\n", "error", "memory"),
    ("fork-bomb", "import os\nwhile True:\n    os.fork()\n" + SQUARE, "error", "not allowed"),
    ("subprocess", "import subprocess\nsubprocess.Popen(['sleep', '1000'])\n" + SQUARE, "error", "not allowed"),
    ("multiprocessing", "import multiprocessing as mp\nmp.get_context('spawn').Process(target=print).start()\n"
     + SQUARE, "error", "not"),
    ("sys-exit", "import sys\nsys.exit(0)\n" + SQUARE, "error", "exit"),
    ("huge-file", "open('big', 'wb').write(b'0' * 200_000_000)\n" + SQUARE, "error", "File too large"),
]


@pytest.mark.parametrize("name,answer,status,phrase", FAULTS, ids=[f[0] for f in FAULTS])
def test_fault_ends_as_a_recorded_reason(name, answer, status, phrase, faults_sandbox):
    report, seconds = grade(faults_sandbox, answer)
    assert report.score == 0
    assert [c.status for c in report.cells] == [status] * 3, [(c.status, c.feedback) for c in report.cells]
    for cell in report.cells:
        assert phrase.lower() in cell.feedback.lower(), cell.feedback
        assert cell.seconds < FAST.seconds_per_test + SLACK
    assert seconds < 3 * (FAST.seconds_per_test + SLACK)


def test_output_flood_is_capped(faults_sandbox):
    answer = "import sys\nfor _ in range(200_000):\n    print('x' * 100)\n    sys.stderr.write('y' * 100)\n" + SQUARE
    graded, seconds = run_graded(faults_sandbox, answer, limits=Limits(seconds_per_test=60, output_bytes=10_000))
    assert graded.outcomes[0].status == "passed", graded.outcomes[0].feedback
    assert len(graded.output) <= 4_100 and "x" in graded.output
    assert seconds < 60 + SLACK
    report, _ = grade(faults_sandbox, answer, limits=Limits(seconds_per_test=60))
    assert report.score == 3
    assert len(json.dumps(report.to_json())) < 20_000


def test_flood_of_feedback_is_capped(faults_sandbox):
    answer = SQUARE + "\nSquare.forward = staticmethod(lambda ctx, x: (_ for _ in ()).throw(RuntimeError('z' * 10**7)))\n"
    outcome, _ = run_one(faults_sandbox, answer)
    assert outcome.status == "error" and len(outcome.feedback) < 2_000


def test_sandbox_keeps_working_after_faults(faults_sandbox):
    """After crashes, timeouts and floods, the same sandbox grades a correct notebook in full."""
    for answer in ("import os\nos._exit(1)\n", "while True:\n    pass\n"):
        run_one(faults_sandbox, answer, limits=Limits(seconds_per_test=3))
    report, _ = grade(faults_sandbox, SQUARE, limits=Limits(seconds_per_test=90))
    assert report.score == report.max_score == 3


@pytest.mark.parametrize("escape", ["import signal\nsignal.setitimer(signal.ITIMER_REAL, 0)\n",
                                    "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n",
                                    "try:\n    while True:\n        pass\nexcept BaseException:\n    pass\n"])
def test_timeout_is_bounded_even_when_the_answer_ignores_signals(faults_sandbox, escape):
    """An answer cell that escapes its own time limit (cancels or blocks the timer, catches what it raises) and
    ignores SIGTERM is ended by the judge's own timer: one per answer cell and one for the setup (2 here)."""
    answer = "import signal\ntry:\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\nexcept OSError:\n    pass\n" \
             + escape + "while True:\n    pass\n" + SQUARE
    outcome, seconds = run_one(faults_sandbox, answer, limits=Limits(seconds_per_test=3))
    assert outcome.status == "timeout" and "time limit" in outcome.feedback
    assert seconds < 2 * 3 + SLACK


# ------------------------------------------------------------------------------------- files and cells

@pytest.mark.parametrize("content,message", [
    ("this is not json", "not a notebook"),
    ("", "not a notebook"),
    ("[1, 2, 3]", "not a Jupyter notebook"),
    ('{"cells": "nope"}', "not a Jupyter notebook"),
    ('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', "not a notebook of this course"),
    ('{"cells": [{"cell_type": "code"}], "nbformat": 4, "nbformat_minor": 5}', "not a valid Jupyter notebook"),
    ("\x00\x01binary\xff", "not a notebook"),
])
def test_corrupt_file_is_a_clear_error(content, message, faults_sandbox):
    start = time.monotonic()
    with pytest.raises(notebooks.NotebookError) as raised:
        grading.grade_text(content, "homework.ipynb", faults_sandbox, limits=FAST)
    assert message in str(raised.value)
    assert time.monotonic() - start < 10


def test_unreadable_paths_are_clear_errors(tmp_path, faults_sandbox):
    with pytest.raises(notebooks.NotebookError, match="no such file"):
        grading.grade_path(tmp_path / "missing.ipynb", faults_sandbox)
    with pytest.raises(notebooks.NotebookError, match="folder"):
        grading.grade_path(tmp_path, faults_sandbox)
    binary = tmp_path / "binary.ipynb"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(notebooks.NotebookError, match="cannot be read as text"):
        grading.grade_path(binary, faults_sandbox)


def _notebook(answer: str = SQUARE):
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": answer})
    return nb


def test_deleted_answer_cell_is_named(faults_sandbox):
    nb = _notebook()
    nb.cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") != "answer_Square"]
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", faults_sandbox, limits=FAST)
    assert report.score == 0
    assert all("no answer cell answer_Square" in c.feedback for c in report.cells)


def test_answer_cell_without_metadata_is_named(faults_sandbox):
    nb = _notebook()
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "answer_Square":
            cell.metadata = {}
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", faults_sandbox, limits=FAST)
    assert report.score == 0
    assert all("no answer cell answer_Square" in c.feedback for c in report.cells)


def test_all_metadata_stripped_is_matched_by_file_name(faults_sandbox):
    nb = _notebook()
    for cell in nb.cells:
        cell.metadata = {}
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", faults_sandbox, limits=FAST)
    assert report.assignment == ASSIGNMENT and report.score == 0
    with pytest.raises(notebooks.NotebookError, match="not a notebook of this course"):
        grading.grade_text(nbformat.writes(nb), "renamed.ipynb", faults_sandbox, limits=FAST)


def test_renamed_file_is_recognised_by_content(faults_sandbox):
    report, _ = grading.grade_text(nbformat.writes(_notebook()), "my homework (final) v2.ipynb", faults_sandbox,
                                   limits=Limits(seconds_per_test=90))
    assert report.assignment == ASSIGNMENT and report.score == 3 and report.notebook == "my homework (final) v2.ipynb"


def test_duplicated_answer_cells_take_the_first(faults_sandbox):
    """A second answer cell with the same id (copy-pasted) does not override the first."""
    nb = _notebook()
    answer = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "answer_Square")
    twin = nbformat.from_dict(json.loads(json.dumps(answer)))
    twin.source = "raise RuntimeError('second copy')"
    nb.cells.append(twin)
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", faults_sandbox,
                                   limits=Limits(seconds_per_test=90))
    assert report.score == 3


@pytest.mark.slow
def test_root_leaves_when_its_grader_dies(tmp_path):
    """A grader killed while a fork of it still holds the root's socket (a batch worker's child, say)
    must not leave the root process behind."""
    import os
    import signal
    import subprocess
    import sys

    script = tmp_path / "grader.py"
    script.write_text(
        "import os, sys, time\n"
        "from autograder.engine.sandbox import Sandbox\n"
        "box = Sandbox().start()\n"
        "holder = os.fork()\n"
        "if holder == 0:\n"
        "    os.close(1)\n"
        "    os.close(2)\n"
        "    time.sleep(120)\n"
        "    os._exit(0)\n"
        "print(box.root_pid, holder, flush=True)\n"
        "os._exit(0)\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    root, holder = map(int, run.stdout.split())
    try:
        for pid, what in ((root, "root process"),):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.5)
            else:
                pytest.fail(f"the {what} outlived its grader")
    finally:
        for pid in (holder, root):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_answer_cell_that_raises_after_defining_its_names_is_noted(faults_sandbox):
    """A leftover try-out line that raises: every test passes, and the report still says so."""
    report, _ = grade(faults_sandbox, SQUARE + "\nSquare.apply(torch.ones(2), 'oops')\n",
                      limits=Limits(seconds_per_test=90))
    assert report.score == report.max_score == 3
    assert len(report.notes) == 1 and "answer_Square" in report.notes[0] and "TypeError" in report.notes[0]


def test_infinite_loop_in_an_answer_cell_costs_its_own_time_limit_once(faults_sandbox):
    """The answers run once: a loop in a cell ends that cell (as a raise there would) once, not once per test."""
    report, seconds = grade(faults_sandbox, "while True:\n    pass\n" + SQUARE, limits=Limits(seconds_per_test=5))
    assert [c.status for c in report.cells] == ["error"] * 3
    assert seconds < 5 + SLACK and "time limit exceeded in this cell" in report.cells[0].feedback


def test_a_judge_that_fails_says_why(faults_sandbox):
    """The grader's own failure (here: a job without limits) comes back as a reason, and grading goes on."""
    reply = faults_sandbox.exchange({"cells": [], "tests": [["test_x", "pass"]], "seed": 0,
                                     "protected": faults_sandbox.protected})
    assert reply == {"error": "ProtocolError: malformed job (message: 'limits' is a required property)"}
    outcome, _ = run_one(faults_sandbox, SQUARE)
    assert outcome.status == "passed", outcome.feedback


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []


def _descendants(pid: int) -> list[int]:
    found = []
    for child in _children(pid):
        found += [child] + _descendants(child)
    return found


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
                    reason="needs /proc/<pid>/task/<tid>/children")
def test_a_killed_judge_leaves_no_learner_behind():
    """If the judge dies mid-test (a killed batch, the OOM killer), its learner's sandbox dies with it: an answer
    looping forever must not run on as an orphan."""
    import threading

    loop = SQUARE + "\n_f = Square.forward\ndef forward(ctx, x):\n    while True:\n        pass\nSquare.forward = staticmethod(forward)\n"
    with grading.new_sandbox() as box:
        worker = threading.Thread(target=run_one, args=(box, loop), kwargs={"limits": Limits(seconds_per_test=120)})
        worker.start()
        deadline, tree, judge = time.monotonic() + 60, [], None
        while time.monotonic() < deadline and len(tree) < 5:  # starter, sandbox, reaper, template, the copy
            judges = _children(box.root_pid)
            judge = judges[0] if judges else None
            tree = _descendants(judge) if judge else []
            time.sleep(0.2)
        assert judge and len(tree) >= 4, tree
        os.kill(judge, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and [p for p in tree if os.path.exists(f"/proc/{p}")
                                                and open(f"/proc/{p}/stat").read().split()[2] != "Z"]:
            time.sleep(0.2)
        alive = [p for p in tree if os.path.exists(f"/proc/{p}") and open(f"/proc/{p}/stat").read().split()[2] != "Z"]
        worker.join(30)
    assert not alive, f"learner processes outlived their judge: {alive}"
