"""Levels of isolation: each one grades honest code alike, holds its own layers, and says which it had.

    full            namespaces (user, PID, IPC, mount, network, UTS; a tmpfs folder) + Landlock + seccomp
    no-namespaces   Landlock + seccomp: what a JupyterHub pod or Binder usually allows
    none            no kernel confinement at all: what macOS or an old kernel gives (a preview grade)

The weaker levels are forced here; on a machine without user namespaces "full" itself degrades to
"no-namespaces" and says why.
"""

from __future__ import annotations

import nbformat
import pytest

from autograder.classroom import autograde as classroom
from autograder.engine import grading, notebooks
from autograder.maintain import samples
from autograder.engine.sandbox import Limits, confine, seccomp, world

from helpers import run_cli, write_student

CLASS_RUNNER = grading.new_sandbox(for_a_class=True)  # a handle: its root starts on first use

pytestmark = pytest.mark.xdist_group("isolation")

SQUARE = samples.reference_answers(next(s for s in notebooks.sources() if s.assignment == "01_square"))["answer_Square"]
USERNS = open("/proc/sys/user/max_user_namespaces").read().strip() != "0" if confine.linux() else False
LEVELS = ["full", "no-namespaces", "none"]

# An answer that is right, and reports (through a raised error's message, which the notes show) what it
# could see of the machine: a file outside the allow-list, and how many processes /proc lists.
PEEK = '''
import os
def _peek():
    seen = []
    try:
        seen.append("hostname=" + open("/etc/hostname").read().strip()[:20])
    except OSError as error:
        seen.append(f"hostname refused ({type(error).__name__})")
    try:
        seen.append(f"processes={sum(p.isdigit() for p in os.listdir('/proc'))}")
    except OSError as error:
        seen.append(f"proc refused ({type(error).__name__})")
    raise RuntimeError("PEEK " + " ".join(seen))
{SQUARE}
_peek()
'''


def grade(answer: str, level: str):
    _, nb = samples.student_notebook("01_square", {"Square": answer})
    with grading.new_sandbox() as box:
        report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", box,
                                       limits=Limits(seconds_per_test=60, isolation=level))
    return report


def peek(level: str) -> str:
    report = grade(PEEK.replace("{SQUARE}", SQUARE), level)
    assert report.score == 3, [(c.grade_id, c.feedback) for c in report.cells]
    return " ".join(n for n in report.notes if "PEEK" in n)


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_gives_an_honest_answer_full_marks_and_says_which_it_had(level):
    report = grade(SQUARE, level)
    assert report.score == report.max_score == 3, [(c.grade_id, c.feedback) for c in report.cells]
    isolation = report.to_json()["isolation"]
    assert isolation["level"] == level
    assert isolation["strong"] is (level == "full" and USERNS and bool(isolation["landlock"]))
    weak_note = [n for n in report.notes if "weaker isolation" in n]
    assert bool(weak_note) is (not isolation["strong"]), report.notes
    if level == "none":
        assert not isolation["landlock"] and not isolation["seccomp"] and not isolation["namespaces"]


@pytest.mark.skipif(not USERNS, reason="no user namespaces on this machine")
def test_full_isolation_shows_only_the_sandbox_and_the_allow_list():
    seen = peek("full")
    assert "hostname refused" in seen, seen
    processes = int(seen.split("processes=")[1].split()[0])
    assert processes <= 3, seen  # its reaper, itself (and a test's copy): nobody else's


@pytest.mark.skipif(not confine.landlock_abi(), reason="no Landlock on this machine")
def test_without_namespaces_landlock_still_holds_the_allow_list():
    seen = peek("no-namespaces")
    assert "hostname refused" in seen and "proc refused" in seen, seen


def test_without_any_layer_the_machine_is_visible():
    """The weakest level is real (so the tests above measure the layers, not an accident)."""
    seen = peek("none")
    assert "hostname=" in seen, seen


def test_autograde_refuses_weak_isolation_unless_told(grading_home):
    write_student(grading_home / "submitted" / "ada" / "01_square" / "01_square.ipynb", "01_square")
    with pytest.raises(classroom.WeakIsolation, match="--allow-weak-isolation"):
        classroom.autograde(CLASS_RUNNER, assignment="01_square", progress=False,
                            limits=Limits(isolation="no-namespaces"))
    result = classroom.autograde(CLASS_RUNNER, assignment="01_square", progress=False,
                                 limits=Limits(isolation="no-namespaces"),
                                 allow_weak_isolation=True)
    assert [r["score"] for r in result.graded] == [3]
    assert result.graded[0]["isolation"]["strong"] is False


def test_the_cli_names_the_flag_when_it_refuses(grading_home):
    write_student(grading_home / "submitted" / "ada" / "01_square" / "01_square.ipynb", "01_square")
    env = {"AUTOGRADER_HOME": str(grading_home)}
    refused = run_cli("autograde", "--isolation", "none", "--quiet", env=env)
    assert refused.returncode == 2 and "--allow-weak-isolation" in refused.stderr, refused.stderr
    allowed = run_cli("autograde", "--isolation", "none", "--quiet", "--allow-weak-isolation", env=env)
    assert allowed.returncode == 0, allowed.stderr


class _NoCalls:
    def __getattr__(self, name):
        raise AssertionError(f"a Linux call ({name}) was made on another system")


def test_off_linux_no_kernel_call_is_made(monkeypatch, tmp_path):
    """On macOS the self-check runs with no layer at all: nothing reaches a Linux-only call."""
    monkeypatch.setattr(confine.sys, "platform", "darwin")
    monkeypatch.setattr(confine, "_LIBC", _NoCalls())
    assert world.enter_namespaces() == {"namespaces": False, "why": "not Linux (darwin)"}
    assert world.learner_ids(0) is None
    assert confine.landlock_abi() == 0
    assert confine.install_landlock(["/"], [str(tmp_path)], []) == 0
    assert seccomp.install("notify") is None
