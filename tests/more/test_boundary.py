"""The judge boundary: what an answer cell can reach outside the learner's confined process.

test_redteam.py asks whether an answer can raise its own grade through the checks; this file asks whether
it can reach the rest: the control socket the template process holds to the judge, the processes above it
(pids, rlimits, priorities, /proc), files and Unix sockets outside a deny-list, IPC objects that outlive a
grading, the judge's memory, the disk. Each attack is one answer cell in tests/redteam/boundary/<layer>/
(the folder names the layer that stops it first, as in test_redteam.py's LAYERS; its first lines say what it
does); each test grades a real notebook through `grading.grade_text` and asserts the safe outcome. Some attacks are honest answers that the confinement must
not break (threads, large plain data).

Attacks that damage the processes above them get a sandbox of their own, closed after the test.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder.engine import grading, notebooks
from autograder import paths
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

pytestmark = pytest.mark.xdist_group("boundary")

HERE = Path(__file__).parent.parent / "redteam" / "boundary"
LIMITS = Limits(seconds_per_test=30)
SOURCE = next(s for s in notebooks.sources() if s.assignment == "01_square")
CORRECT = samples.reference_answers(SOURCE)["answer_Square"]
WRONG = next(e.source for e in samples.zoo() if e.exercise == "Square" and e.name == "wrong_derivative")
SOLUTION_TEXT = (paths.SOLUTIONS / "01_square" / "01_square.ipynb").read_text()

# A variable of the grader's environment, there before any sandbox of this process starts (the processes
# that grade inherit it). An answer must never show it from another process's /proc/<pid>/environ.
CANARY = os.environ.setdefault("BOUNDARY_CANARY", "canary-" + secrets.token_hex(8))


def attack(name: str, **values) -> str:
    """The answer cell of tests/redteam/boundary/<layer>/<name>.py, its {placeholders} filled in."""
    (path,) = HERE.glob(f"*/{name}.py")
    text = path.read_text()
    values = {"CORRECT": CORRECT, "WRONG": WRONG, **values}
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def grade(box, answers: dict, assignment: str = "01_square", limits: Limits = LIMITS):
    _, nb = samples.student_notebook(assignment, answers, fill=False)
    report, _ = grading.grade_text(nbformat.writes(nb), f"{assignment}.ipynb", box, limits=limits)
    return report


def grade_correct(box):
    return grade(box, {"Square": CORRECT})


def feedback_of(report) -> str:
    return " | ".join([c.feedback for c in report.cells] + list(report.notes))


def summary(report) -> list:
    return [(c.grade_id, c.status, c.feedback[:300]) for c in report.cells] + list(report.notes)


@pytest.fixture(scope="module")
def box():
    with grading.new_sandbox() as sandbox:
        yield sandbox


@pytest.fixture
def own_box():
    """A sandbox for one attack on the processes above the learner's: what it damages goes with it."""
    with grading.new_sandbox() as sandbox:
        yield sandbox


def spared(sandbox) -> set:
    """Processes an attack on its ancestors must leave alone whatever the sandbox allows: this test run
    and the grader's root process (shared by every sandbox of this run), so a failure stays one test's."""
    return {os.getpid(), os.getppid()} | ({sandbox.root_pid} if getattr(sandbox, "root_pid", None) else set())


# ---------------------------------------------------------------------------------- 1. control messages

@pytest.mark.parametrize("assignment", ["01_square", "03_shapes"])
def test_forged_ready_report_scores_nothing(box, assignment):
    """An empty answer that writes its own "all passed" report on the control socket must score 0."""
    exercises = samples.exercises_of(assignment)
    answers = {name: "" for name in exercises}
    answers[exercises[0]] = attack("forged-ready", cell=f"answer_{exercises[0]}")
    report = grade(box, answers, assignment)
    assert [c.status for c in report.cells if c.status == "passed"] == [], summary(report)
    assert report.score == 0, summary(report)


def test_a_second_ready_report_is_a_broken_protocol_and_its_note_is_not_shown(box):
    """A correct answer that sends a well-formed report of its own: the judge sees two reports, believes
    neither (no score from it) and says so in its own words; the answer's note text never reaches the learner."""
    report = grade(box, {"Square": attack("forged-second-ready", cell="answer_Square")})
    text = feedback_of(report)
    assert "ATTACKER-CHOSEN-NOTE" not in text, summary(report)
    assert report.score == 0, summary(report)
    assert any("reported them twice" in note for note in report.notes), summary(report)


# --------------------------------------------------------------------------------------- 2. forged pid

def test_forged_pid_kills_nobody(box):
    """A pid the learner's process names must never be the one the judge kills."""
    victim = subprocess.Popen(["sleep", "600"])
    try:
        report = grade(box, {"Square": attack("forged-pid", victim=victim.pid)})
        time.sleep(0.5)
        assert victim.poll() is None, f"the judge killed the process the answer named: {summary(report)}"
    finally:
        victim.kill()
        victim.wait()
    after = grade_correct(box)
    assert after.score == after.max_score == 3, summary(after)


# --------------------------------------------------------------------------------- 3. files to read

def test_files_outside_the_deny_list_are_not_read(box):
    """A copy of the solutions kept anywhere else on the machine must stay unreadable to an answer."""
    planted_root = Path(tempfile.mkdtemp(prefix="boundary-", dir="/var/tmp"))
    try:
        backup = planted_root / "backup"
        backup.mkdir()
        planted = backup / "01_square.ipynb"
        shutil.copy(paths.SOLUTIONS / "01_square" / "01_square.ipynb", planted)
        os.chmod(planted_root, 0o755)
        report = grade(box, {"Square": attack("read-outside-deny-list", planted=planted,
                                              planted_root=planted_root)})
    finally:
        shutil.rmtree(planted_root, ignore_errors=True)
    text = feedback_of(report)
    assert "SAW" in text, summary(report)  # the attack ran and reported
    assert "BEGIN SOLUTION" not in text and "save_for_backward(x)" not in text, text[:1500]
    assert "'planted': 'refused" in text, text[:1500]
    assert report.score == 0


# ------------------------------------------------------------------------------------ 4. Unix sockets

def test_pathname_unix_socket_is_not_reached(box):
    """A Unix socket another program listens on must not be reachable from an answer cell."""
    folder = Path(tempfile.mkdtemp(prefix="boundary-", dir="/var/tmp"))
    os.chmod(folder, 0o777)
    path = folder / "service.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    os.chmod(path, 0o777)
    server.listen(8)
    server.settimeout(0.2)
    received: list = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, socket.timeout, OSError):
                continue
            conn.settimeout(1)
            try:
                received.append(conn.recv(100))
            except OSError:
                received.append(b"")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        report = grade(box, {"Square": attack("unix-socket-by-path", socket_path=path)})
    finally:
        stop.set()
        thread.join(5)
        server.close()
        shutil.rmtree(folder, ignore_errors=True)
    assert received == [], f"the answer reached the test's server: {received}; {summary(report)}"
    assert "REACHED" in feedback_of(report), summary(report)
    assert report.score <= 1


# ---------------------------------------------------------------------------------------- 5. SysV IPC

_LIBC = ctypes.CDLL(None, use_errno=True)


def _remove_ipc(key: int, marker: str) -> None:
    shm, msq = _LIBC.shmget(key, 0, 0), _LIBC.msgget(key + 1, 0)
    if shm >= 0:
        _LIBC.shmctl(shm, 0, None)  # IPC_RMID
    if msq >= 0:
        _LIBC.msgctl(msq, 0, None)
    rt = ctypes.CDLL(ctypes.util.find_library("rt") or None)
    rt.mq_unlink(f"/{marker}".encode())


def test_ipc_objects_do_not_outlive_a_grading(box):
    """What one grading leaves in SysV shared memory or a POSIX queue must not be seen by the next."""
    key, marker = 0x42000000 + secrets.randbelow(1 << 20), "boundary" + secrets.token_hex(6)
    try:
        writer = grade(box, {"Square": attack("sysv-shm-writer", key=key, marker=marker)})
        assert writer.score == 3, summary(writer)
        reader = grade(box, {"Square": attack("sysv-shm-reader", key=key, marker=marker)})
    finally:
        _remove_ipc(key, marker)
    text = feedback_of(reader)
    assert "FOUND" in text, summary(reader)
    assert marker not in text, text[:1500]
    assert reader.score <= 1


# ----------------------------------------------------------------------- 6. the processes above the learner

def test_prlimit_and_renice_of_ancestors_change_nothing_next(own_box):
    """Lowering the grader's own limits and priority must not cost the next notebooks any marks."""
    source = attack("prlimit-ancestors", spare=spared(own_box), resource=7, soft=4, hard=4096)  # RLIMIT_NOFILE
    hostile = grade(own_box, {"Square": source})
    for _ in range(2):
        after = grade_correct(own_box)
        assert after.score == after.max_score == 3, (summary(after), summary(hostile))


def test_other_processes_environ_and_maps_are_not_read(box):
    """/proc/<pid>/environ and maps of the grader's processes stay closed to an answer."""
    report = grade(box, {"Square": attack("proc-of-others", spare=spared(box))})
    text = feedback_of(report)
    assert "OTHERS" in text, summary(report)
    assert CANARY not in text, text[:1500]
    assert "environ-read" not in text and "maps-read" not in text, text[:1500]


# ------------------------------------------------------------------------------------ 7. judge memory

def test_expanded_output_does_not_blow_up_the_judge(box):
    """A stride-0 output of a huge shape must not be materialised by the judge (it has no memory limit)."""
    limits = Limits(seconds_per_test=30, memory_mb=256)
    baseline = grade(box, {"Square": CORRECT}, limits=limits)
    assert baseline.score == 3, summary(baseline)
    base_mb = max(c.memory_mb for c in baseline.cells)
    n = 12000  # 12000 x 12000 float64 = 1.15 GB, four and a half times the learner's limit
    start = time.monotonic()
    report = grade(box, {"Square": attack("expanded-output", n=n, size_gb=1.15)}, limits=limits)
    seconds = time.monotonic() - start
    peak = max(c.memory_mb for c in report.cells)
    assert report.score <= 1, summary(report)  # it does save its input: that test may pass
    assert peak < base_mb + limits.memory_mb, (f"a grading process reached {peak} MB (a correct answer: "
                                               f"{base_mb} MB): {summary(report)}")
    assert seconds < 30, summary(report)
    assert str(n) in feedback_of(report), summary(report)
    after = grade_correct(box)
    assert after.score == 3, summary(after)


# ----------------------------------------------------------------------------------------- 8. disk

def test_disk_writes_are_capped_in_total(box):
    """Many files each under the per-file limit must still stop well short of filling the disk."""
    report = grade(box, {"Square": attack("fill-the-disk", count=48, mb=25)})
    text = feedback_of(report)
    written = int(text.split("WROTE ", 1)[1].split()[0]) if "WROTE " in text else None
    assert written is not None, summary(report)
    assert written < 256, f"the answer wrote {written} MB in its folder"


# --------------------------------------------------------------------------------------- 9. threads

def test_threads_in_an_honest_answer_keep_full_marks(box):
    """torch.set_num_threads(4) and a matmul in a correct answer must not cost any marks."""
    report = grade(box, {"Square": attack("threads-for-speed")})
    assert report.score == report.max_score == 3, summary(report)


def test_a_refused_thread_is_named_in_the_feedback(box):
    """An answer that starts a thread is told that threads are what the grader refused."""
    report = grade(box, {"Square": attack("start-a-thread")})
    text = feedback_of(report).lower()
    assert "thread" in text, summary(report)
    assert "exited with code" not in text, summary(report)
    assert any(w in text for w in ("not allowed", "refused", "denied", "not available")), summary(report)


# ------------------------------------------------------------------------------- 10. a big ready report

def test_large_plain_data_names_keep_full_marks(box):
    """Many names that travel by value (together far above one datagram) must not break the grading."""
    source = attack("big-plain-data", count=40, rows=9000)
    table = {"rows": ["r%06d" % i for i in range(9000)], "k": 39}
    from autograder.engine.sandbox import codec

    assert len(json.dumps(codec.encode(table)[0])) < 100_000  # each one travels by value
    report = grade(box, {"Square": source})
    assert report.score == report.max_score == 3, summary(report)


# --------------------------------------------------------------------------------- 11. batch fairness

def test_a_hostile_notebook_does_not_change_the_next_ones_grade(own_box):
    """A correct notebook graded right after a hostile one in the same sandbox scores as it does alone."""
    alone = grade_correct(own_box)
    assert alone.score == 3, summary(alone)
    # The hostile one lowers the address-space limit of the processes above it to 64 MB.
    source = attack("prlimit-ancestors", spare=spared(own_box), resource=9, soft=64 << 20, hard=64 << 20)
    grade(own_box, {"Square": source})
    after = grade_correct(own_box)
    assert [(c.grade_id, c.status) for c in after.cells] == [(c.grade_id, c.status) for c in alone.cells], \
        summary(after)
    assert after.score == alone.score


# -------------------------------------------------------------------------- 12. hidden tests in memory

def test_hidden_tests_and_the_seed_are_not_in_the_learners_memory(box):
    """No learner process is a copy of a process that held the hidden test cells or the course's base seed:
    neither its objects nor its raw memory hold them (the learner's starter is forked before the judge reads
    them)."""
    seed = 8675309
    digits = str(seed)
    source = attack("hidden-tests-in-memory", seed="the seed", seed_less_one=seed - 1, seed_head=digits[:5],
                    seed_tail=digits[5:])
    _, nb = samples.student_notebook("01_square", {"Square": source}, fill=False)
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", box, seed=seed, limits=LIMITS)
    text = " ".join(report.notes) + feedback_of(report)
    assert "SCANNED" in text, text  # the attack ran
    scanned = int(text.split("SCANNED ")[1].split()[0])
    assert scanned > 50, text  # it read the heap (and not nothing)
    found = text.split("FOUND ")[1]
    assert "job dict" not in found and "test list" not in found and "memory:" not in found, found
    assert "seed dict" not in found, found
