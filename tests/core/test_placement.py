"""Where a judge and its learner's processes run (root.JudgePlacement: one CPU for the two, which take turns),
and how a test's copy is forked (confine.fork_without_callbacks: no Python at-fork callbacks)."""

from __future__ import annotations

import os
import subprocess

import pytest

from autograder.engine.sandbox import Limits, confine, root

SQUARE = ("answer_Square", "import os, random, threading, torch\n"
                           "class Square(torch.autograd.Function):\n"
                           "    @staticmethod\n    def forward(ctx, x):\n        return x * x\n"
                           "    @staticmethod\n    def backward(ctx, g):\n        return 2 * g\n")
TWO_CPUS = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: there is nothing to place")


class Placement(root.JudgePlacement):
    """The root's placement on a chosen set of CPUs, the root itself running on `here`."""

    def __init__(self, cpus, here=0):
        super().__init__()
        self.cpus, self.here = list(cpus), here

    def current(self):
        return self.here


@pytest.fixture
def placement(monkeypatch):
    def make(cpus, here=0):
        made = Placement(cpus, here)
        monkeypatch.setattr(root, "current_cpu", made.current)
        return made
    return make


@pytest.fixture
def live():
    """A new process that runs until the test ends: its pid."""
    started = []

    def start() -> int:
        started.append(subprocess.Popen(["sleep", "120"]))
        return started[-1].pid
    yield start
    for process in started:
        process.kill()
        process.wait()


def _ended() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


# (the CPUs, the CPU the root runs on, the judges running: [(alive?, cpu)], the CPU the next judge gets)
CASES = {
    "one CPU: none placed": ([0], 0, [], None),
    "the first judge: the root's CPU": ([0, 1], 1, [], 1),
    "a root outside its set: the set's first": ([2, 3], 7, [], 2),
    "a root whose CPU cannot be read: the set's first": ([2, 3], None, [], 2),
    "a second judge: the CPU left free": ([0, 1], 0, [(True, 0)], 1),
    "a free CPU is preferred to the root's": ([0, 1, 2], 0, [(True, 0), (True, 1)], 2),
    "every CPU taken: the least loaded": ([0, 1], 0, [(True, 0), (True, 0), (True, 1)], 1),
    "an ended judge is forgotten": ([0, 1], 1, [(False, 1)], 1),
    "ended judges free their CPU": ([0, 1], 0, [(True, 0), (False, 1), (False, 1)], 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_judge_gets_the_cpu_fewest_judges_run_on(placement, live, case):
    cpus, here, running, expected = CASES[case]
    place = placement(cpus, here)
    for alive, cpu in running:
        place.placed(live() if alive else _ended(), cpu)
    assert place.next_cpu() == expected
    if expected is not None:
        place.placed(_ended(), expected)  # a judge that came and went counts for nothing afterwards
        assert place.next_cpu() == expected


def test_a_judge_pinned_runs_only_there():
    cpu = sorted(os.sched_getaffinity(0))[-1]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        root.JudgePlacement().pin(cpu)
        os.write(write, ",".join(map(str, sorted(os.sched_getaffinity(0)))).encode())
        os._exit(0)
    os.close(write)
    seen = os.read(read, 100).decode()
    os.waitpid(pid, 0)
    os.close(read)
    assert seen == str(cpu)
    before = os.sched_getaffinity(0)
    root.JudgePlacement().pin(None)  # nothing to place: nothing changes
    assert os.sched_getaffinity(0) == before


@TWO_CPUS
def test_a_tests_copy_runs_on_its_judges_cpu(sandbox):
    """The copy answering the test's requests reports its CPUs (a tensor, computed there); the test compares
    them with its judge's, in the judge."""
    where = ("answer_where", "def where(x):\n    return torch.tensor(sorted(os.sched_getaffinity(0))) + 0 * x.sum()\n")
    test = ("judges = sorted(os.sched_getaffinity(0))\n"
            "copys = where(torch.zeros(1)).tolist()\n"
            "assert len(judges) == 1 and copys == judges, (judges, copys)\n")
    outcome = sandbox.run([SQUARE, where], [("test_where", "import os, torch\n" + test)],
                            limits=Limits()).outcomes[0]
    assert outcome.status == "passed", outcome.feedback


def test_a_tests_copy_is_forked_without_pythons_at_fork_callbacks(sandbox):
    """A callback an answer registers never runs in a test's copy (as in one process, where no fork runs it);
    the copy's Python is whole: its threads module knows its one thread, and each copy starts from the
    template's random state, so two tests see the same draw."""
    hooked = ("answer_hooked", "RAN = []\nos.register_at_fork(after_in_child=lambda: RAN.append(1))\n"
                               "def facts(x):\n"
                               "    return torch.tensor([len(RAN), threading.current_thread() is threading.main_thread(),"
                               " random.random()]) + 0 * x.sum()\n")
    test = ("import torch\nran, main, draw = facts(torch.zeros(1)).tolist()\n"
            "assert ran == 0 and main == 1, (ran, main)\n"
            "raise AssertionError(f'draw {draw!r}')\n")
    outcomes = sandbox.run([SQUARE, hooked], [("test_one", test), ("test_two", test)], limits=Limits()).outcomes
    draws = [o.feedback for o in outcomes]
    assert all("draw" in d for d in draws), draws
    assert draws[0] == draws[1]


def test_fork_without_callbacks_skips_pythons_and_forks():
    ran = []
    os.register_at_fork(after_in_child=lambda: ran.append("child"), after_in_parent=lambda: ran.append("parent"))
    read, write = os.pipe()
    pid = confine.fork_without_callbacks()
    if pid == 0:
        os.write(write, repr(ran).encode())
        os._exit(0)
    os.close(write)
    in_child = os.read(read, 100).decode()
    os.waitpid(pid, 0)
    os.close(read)
    assert pid > 0 and in_child == "[]" and ran == []


def test_fork_without_callbacks_fails_as_os_fork_does(monkeypatch):
    """A failed fork is an OSError, never a pid of -1 (which os.kill would take for every process)."""
    class NoFork:
        @staticmethod
        def fork():
            return -1
    monkeypatch.setattr(confine, "_LIBC", NoFork())
    with pytest.raises(OSError):
        confine.fork_without_callbacks()
