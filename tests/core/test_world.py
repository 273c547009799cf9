"""The learner owns nothing, knows nothing, reaches nothing: one test per family of issue-23 attacks, each an
answer cell in tests/redteam/boundary/<layer>/ (the folder names the layer that stops it first; its first lines
say what it does). Each grades a real notebook 01 and checks, from outside the sandbox, that nothing happened:
the planted file's mode and times, what a socket on the host received, what a later grading can read back,
what the report shows. A correct answer is the carrier, so the attacks cost it nothing but are real.

    family                                        layer (first)   test
    metadata of a file outside the allow-list     identity        test_metadata_outside_the_allow_list_is_untouched
    metadata of the files every grading imports   root            test_metadata_inside_the_allow_list_is_untouched
    a channel between two gradings                root            test_nothing_written_reaches_a_later_grading
    the grader's environment and the base seed    environment     test_environment_and_seed_never_reach_a_report
    a folder on the grader's PYTHONPATH           root            test_a_pythonpath_folder_is_not_there
    sendto/sendmsg to a socket on the host        seccomp         test_datagrams_never_reach_a_host_socket
    the i386 system-call entry                    seccomp         test_the_i386_entry_ends_the_process
    host memory outside the address-space limit   limits          test_memory_outside_the_address_space_is_bounded
    an unprivileged grader                        root            test_an_unprivileged_grader_gets_the_same_root
    host memory held in its own tmpfs folder      limits          test_the_memory_cgroup_bounds_the_whole_sandbox
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.engine import grading, notebooks
from autograder import paths
from autograder.maintain import samples
from autograder.engine.sandbox import Limits, cgroup, confine, seccomp

pytestmark = [pytest.mark.xdist_group("world"),
              pytest.mark.skipif(not confine.linux(), reason="the kernel layers are Linux's")]

HERE = Path(__file__).parent.parent / "redteam" / "boundary"
LIMITS = Limits(seconds_per_test=30)
CORRECT = samples.reference_answers(next(s for s in notebooks.sources() if s.assignment == "01_square"))[
    "answer_Square"]
ROOT = os.geteuid() == 0


def attack(name: str, **values) -> str:
    (path,) = HERE.glob(f"*/{name}.py")
    text = path.read_text()
    for key, value in {"CORRECT": CORRECT, **values}.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def grade(box, answer: str, limits: Limits = LIMITS):
    _, nb = samples.student_notebook("01_square", {"Square": answer}, fill=False)
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", box, limits=limits)
    return report


def told(report, word: str = "REPORT") -> str:
    """What the answer reported (the message of the error it raised after defining Square)."""
    text = " ".join(list(report.notes) + [c.feedback for c in report.cells])
    assert word in text, text
    return text.split(word, 1)[1]


@pytest.fixture(scope="module")
def box():
    with grading.new_sandbox() as sandbox:
        yield sandbox


@pytest.fixture
def outside(tmp_path_factory):
    """A folder outside every allow-list (not /tmp, which the sandbox replaces with its own)."""
    folder = Path(tempfile.mkdtemp(prefix="world-", dir="/var/tmp"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_the_new_layers_are_reported(box):
    isolation = grade(box, CORRECT).to_json()["isolation"]
    assert isolation["read_only_root"] and isolation["own_proc"] and isolation["folder_quota"], isolation
    assert isolation["identity"] == ("unallocated" if ROOT else "grader's"), isolation
    assert isolation["strong"], isolation


def test_metadata_outside_the_allow_list_is_untouched(box, outside):
    planted = outside / "gradebook.db"
    planted.write_text("grades")
    os.chmod(planted, 0o600)
    os.setxattr(planted, "user.keep", b"1")
    before = os.stat(planted)
    report = grade(box, attack("metadata-outside-the-allow-list", planted=planted))
    after = os.stat(planted)
    said = told(report)
    assert "DONE" not in said, said
    assert (after.st_mode, after.st_uid, after.st_mtime_ns) == (before.st_mode, before.st_uid, before.st_mtime_ns)
    assert os.listxattr(planted) == ["user.keep"]
    assert report.score == 3


def test_metadata_inside_the_allow_list_is_untouched(box):
    import numpy

    victims = [str(paths.ROOT / "autograder" / "checks" / "square.py"), os.path.join(os.path.dirname(numpy.__file__),
                                                                                     "version.py")]
    before = {v: os.stat(v) for v in victims}
    try:
        report = grade(box, attack("metadata-inside-the-allow-list", victims=victims))
        said = told(report)
        assert "DONE" not in said, said
        for v in victims:
            after = os.stat(v)
            assert (after.st_mode, after.st_mtime_ns, after.st_size) == \
                (before[v].st_mode, before[v].st_mtime_ns, before[v].st_size), v
            assert "user.answer" not in os.listxattr(v), v
    finally:
        for v, st in before.items():  # should the sandbox fail, the next gradings still import their checks
            os.chmod(v, st.st_mode & 0o7777)
    assert grade(box, CORRECT).score == 3


def test_nothing_written_reaches_a_later_grading(box):
    wrote = told(grade(box, attack("covert-channel-writer")), "WROTE")
    assert "xattr" not in wrote and "mtime" not in wrote, wrote
    with grading.new_sandbox() as other:  # another grader run, as the next student's would be
        report = grade(other, attack("covert-channel-reader"))
    assert told(report, "FOUND").split()[0] == "nothing", told(report, "FOUND")
    assert report.score == 0


def _grade_cli(answer: str, env: dict, *args) -> tuple[dict, str]:
    folder = Path(tempfile.mkdtemp(prefix="world-cli-"))
    try:
        _, nb = samples.student_notebook("01_square", {"Square": answer}, fill=False)
        (folder / "01_square.ipynb").write_text(nbformat.writes(nb))
        run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder / "01_square.ipynb"),
                              "--json", *args], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "AUTOGRADER_HOME": str(folder / "home"), **env})
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout), run.stdout + run.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_environment_and_seed_never_reach_a_report():
    secrets = {"PGPASSWORD": "pg-secret-8c1f", "COURSE_TOKEN": "token-5e7a", "AUTOGRADER_SEED": "913457"}
    report, text = _grade_cli(attack("environment-and-seed"), secrets, "--seed", "913457")
    assert report["score"] == 3, text
    for value in secrets.values():
        assert value not in text, value
    assert "SEED 0" in text, text  # the checks in the learner's process know no base seed


def test_a_pythonpath_folder_is_not_there(outside):
    (outside / "secret.txt").write_text("instructor-token-31d9")
    (outside / "othercourse.py").write_text("ANSWER = 42\n")
    report, text = _grade_cli(attack("pythonpath-folder", folder=outside), {"PYTHONPATH": str(outside)})
    assert "instructor-token-31d9" not in text and "othercourse" not in text, text
    assert report["score"] == 3, text


def test_datagrams_never_reach_a_host_socket(box, outside):
    path = str(outside / "host.sock")
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(path)
    os.chmod(path, 0o777)
    receiver.setblocking(False)
    try:
        report = grade(box, attack("sendto-an-outside-socket", path=path))
        said = told(report)
        assert "own=refused" in said, said  # (a connected socket it inherited ignores the address: its peer is the judge)
        with pytest.raises(BlockingIOError):
            receiver.recv(100)
        assert report.score == 3
    finally:
        receiver.close()


@pytest.mark.skipif(not seccomp.available(), reason="libseccomp on x86_64")
@pytest.mark.parametrize("level", ["full", "no-namespaces"])
def test_the_i386_entry_ends_the_process(box, level):
    report = grade(box, attack("i386-entry"), Limits(seconds_per_test=30, isolation=level))
    text = " ".join(c.feedback for c in report.cells)
    assert "REPORT" not in text, text  # the call never returned
    assert "signal 31" in text, text   # SIGSYS: the filter's verdict on a foreign architecture
    assert report.score == 0


def test_memory_outside_the_address_space_is_bounded(box):
    report = grade(box, attack("memory-outside-the-address-space"))
    said = told(report)
    assert "memfd refused" in said and "shm refused" in said, said
    held = int(said.split("HELD ")[1].split()[0])
    assert held <= confine.LEARNER_FILES // 2 * 1, said  # pipes of 1 MB, two descriptors each
    assert report.score == 3


@pytest.mark.skipif(not ROOT, reason="becomes an unprivileged user, which only root can")
def test_an_unprivileged_grader_gets_the_same_root(outside):
    """A hub's grading account: no root, so no uid change, but its own user namespace, the read-only root,
    Landlock and seccomp, and the same grade. (The interpreter or the checkout may sit behind a folder only root
    can search, as mktemp's: the test opens search permission on each such folder for its run, and closes it.)"""
    needed = [Path(os.path.realpath(sys.executable)), Path(sys.prefix).resolve(), paths.ROOT / "autograder"]
    closed = sorted({p for path in needed for p in path.parents
                     if p != Path("/") and not os.stat(p).st_mode & 0o001})
    modes = {p: os.stat(p).st_mode & 0o7777 for p in closed}
    _, nb = samples.student_notebook("01_square", {"Square": CORRECT}, fill=False)
    notebook = outside / "01_square.ipynb"
    notebook.write_text(nbformat.writes(nb))
    home = outside / "home"
    home.mkdir()
    for p in (outside, home, notebook):
        os.chown(p, 65534, 65534)
    try:
        for p in closed:
            os.chmod(p, modes[p] | 0o001)
        run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                              "autograder", "grade", str(notebook), "--json"], capture_output=True, text=True,
                             timeout=600, cwd=outside,
                             env={"PATH": os.environ["PATH"], "HOME": str(home), "AUTOGRADER_HOME": str(home)})
    finally:
        for p in closed:
            os.chmod(p, modes[p])
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["score"] == 3, run.stdout
    isolation = report["isolation"]
    assert isolation["identity"] == "grader's" and isolation["read_only_root"] and isolation["strong"], isolation


@pytest.mark.skipif(not cgroup.available(), reason="no memory cgroup can be made here")
def test_the_memory_cgroup_bounds_the_whole_sandbox(box):
    """Files in its folder are host memory no address-space limit sees: with the folder allowed 600 MB and the
    sandbox 300 MB in all, writing 1000 MB ends the sandbox at the group's limit, and the group is gone after."""
    limits = Limits(seconds_per_test=30, folder_bytes=600 << 20, file_bytes=64 << 20, group_memory_mb=300)
    report = grade(box, attack("memory-in-its-own-folder"), limits)
    text = " ".join(list(report.notes) + [c.feedback for c in report.cells])
    group = report.to_json()["isolation"]["memory_cgroup"]
    assert group, report.to_json()["isolation"]
    assert "REPORT WROTE" not in text, text  # it never got to report
    assert "killed by signal 9" in text, text
    assert group not in os.listdir(cgroup._own_group()[1])  # its group is gone with it


@pytest.mark.skipif(not ROOT, reason="builds a root in a mount namespace of its own, which needs root here")
def test_an_allow_listed_folder_inside_tmp_is_bound_above_the_learners_tmp(outside):
    """A checkout or a venv under /tmp (a CI runner's clone) stays readable in the learner's root: its bind is
    made on top of the learner's own /tmp, not hidden under it; /tmp stays writable around it."""
    from autograder.engine.sandbox import world

    package = Path(tempfile.mkdtemp(prefix="world-package-", dir="/tmp"))
    mountpoint = Path(tempfile.mkdtemp(prefix="world-root-", dir="/tmp"))
    try:
        (package / "lazy_module.py").write_text("VALUE = 7\n")
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                if world.enter_namespaces().get("namespaces") and (child := os.fork()) == 0:
                    built = world.enter_fresh_root(str(mountpoint), [str(package)], {}, 1 << 20, None)
                    readable = (package / "lazy_module.py").read_text() == "VALUE = 7\n"
                    with open("/tmp/written-by-the-learner", "w") as f:
                        f.write("x")
                    os._exit(0 if built["read_only_root"] and readable else 3)
                code = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
            finally:
                os._exit(code)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
        assert not (package / "written-by-the-learner").exists()
    finally:
        shutil.rmtree(package, ignore_errors=True)
        shutil.rmtree(mountpoint, ignore_errors=True)
