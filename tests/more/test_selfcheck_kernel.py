"""The self-check's warm grading root under a real Jupyter kernel (jupyter_client starts ipykernel as JupyterLab
does: a session and process group of its own, interrupted with SIGINT to that group, killed with SIGKILL to it).
The root is the kernel's but not in its process group: an interrupt (idle or mid-self-check) leaves it running and
prints nothing; it still ends with the kernel however the kernel ends; and a self-check after the root died starts
another without a word."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

pytestmark = pytest.mark.slow

# A forward that sleeps: a grading long enough to be interrupted while its judge runs.
SLOW_SQUARE = """
import time

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        time.sleep(0.3)
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
"""
CHECK = ("from autograder import selfcheck\n"
         "_report = selfcheck.grade_this_notebook('01_square.ipynb', show=False)\n"
         "print(json.dumps({'score': _report['score'], 'max': _report['max_score'], "
         "'root': selfcheck.grading_root()}))")


class Kernel:
    """A real ipykernel in `folder`, its stderr (where a process of its group would print a traceback) in a file."""

    def __init__(self, folder, home):
        from jupyter_client import KernelManager

        self.log = open(folder / "kernel-stderr.txt", "w+")
        self.manager = KernelManager(kernel_name="python3")
        env = dict(os.environ, AUTOGRADER_HOME=str(home))
        self.manager.start_kernel(cwd=str(folder), env=env, stderr=self.log, stdout=self.log)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)
        self.execute("import json")

    @property
    def pid(self) -> int:
        return self.manager.provisioner.process.pid

    def send(self, code: str) -> str:
        return self.client.execute(code)

    def reply(self, msg_id: str, timeout: float = 300) -> dict:
        """The cell's outcome: {"status", "stdout", "ename"}."""
        out, ename = [], None
        deadline = time.monotonic() + timeout
        while True:
            message = self.client.get_iopub_msg(timeout=max(1.0, deadline - time.monotonic()))
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "stream" and content["name"] == "stdout":
                out.append(content["text"])
            elif kind == "error":
                ename = content["ename"]
            elif kind == "status" and content["execution_state"] == "idle":
                return {"stdout": "".join(out), "ename": ename}

    def execute(self, code: str) -> dict:
        return self.reply(self.send(code))

    def self_check(self) -> dict:
        outcome = self.execute(CHECK)
        assert outcome["ename"] is None, outcome
        return json.loads(outcome["stdout"].strip().splitlines()[-1])

    def stderr(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def close(self) -> None:
        self.client.stop_channels()
        if self.manager.is_alive():
            self.manager.shutdown_kernel(now=True)
        self.log.close()


@pytest.fixture
def kernel(tmp_path, grading_home):
    from helpers import write_student

    write_student(tmp_path / "01_square.ipynb", "01_square")
    started = Kernel(tmp_path, grading_home)
    yield started
    started.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def _gone(pid: int, waiting: float = 30.0) -> bool:
    deadline = time.monotonic() + waiting
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            return [int(c) for c in children.read().split()]
    except FileNotFoundError:
        return []


def test_an_interrupt_of_the_idle_kernel_leaves_its_grading_root_running_and_silent(kernel):
    first = kernel.self_check()
    assert first["score"] == first["max"] == 3 and first["root"]
    kernel.manager.interrupt_kernel()            # JupyterLab's "interrupt": SIGINT to the kernel's process group
    assert kernel.execute("print('after the interrupt')")["stdout"].strip() == "after the interrupt"
    time.sleep(1.0)
    assert _alive(first["root"]), "the kernel's interrupt ended its grading root"
    again = kernel.self_check()
    assert again == first                        # the same root, the same report
    assert "KeyboardInterrupt" not in kernel.stderr(), kernel.stderr()


def test_an_interrupt_mid_self_check_stops_the_cell_and_leaves_the_root_for_the_next(kernel, tmp_path):
    from helpers import write_student

    first = kernel.self_check()
    root = first["root"]
    write_student(tmp_path / "01_square.ipynb", "01_square", {"Square": SLOW_SQUARE})
    running = kernel.send(CHECK)
    deadline = time.monotonic() + 60
    while not _children(root) and time.monotonic() < deadline:   # the judge of this self-check is running
        time.sleep(0.02)
    assert _children(root), "no judge started"
    time.sleep(0.3)
    kernel.manager.interrupt_kernel()
    assert kernel.reply(running)["ename"] == "KeyboardInterrupt"  # the cell stops, as any interrupted cell
    assert _alive(root), "the interrupt ended the grading root"
    write_student(tmp_path / "01_square.ipynb", "01_square")
    assert kernel.self_check() == first
    assert "KeyboardInterrupt" not in kernel.stderr(), kernel.stderr()


@pytest.mark.parametrize("ending", ["shut down", "killed by Jupyter", "killed alone", "terminated"])
def test_the_grading_root_ends_with_the_kernel_however_it_ends(kernel, ending):
    root = kernel.self_check()["root"]
    if ending == "shut down":
        kernel.manager.shutdown_kernel(now=False)  # a shutdown request: the kernel exits
    elif ending == "killed by Jupyter":
        kernel.manager.shutdown_kernel(now=True)   # SIGKILL to the kernel's process group
    elif ending == "killed alone":
        os.kill(kernel.pid, signal.SIGKILL)        # (an out-of-memory kill: the kernel's process only)
    else:
        os.kill(kernel.pid, signal.SIGTERM)
    assert _gone(root), f"the grading root {root} outlived its kernel"


def test_the_first_import_of_the_package_starts_the_root_the_first_self_check_uses(kernel):
    """A lesson's first figure or visible test imports the package: the kernel's root starts then, in a session of
    its own, and the first self-check finds it (minutes later for a learner; here, at once)."""
    started = kernel.execute("from autograder import lab\nfrom autograder import selfcheck\n"
                             "print(json.dumps(selfcheck.grading_root()))")
    root = json.loads(started["stdout"].strip().splitlines()[-1])
    assert root and _alive(root) and os.getsid(root) == root
    first = kernel.self_check()
    assert first["root"] == root and first["score"] == first["max"] == 3


def test_a_kernel_told_not_to_starts_its_root_at_the_first_self_check(tmp_path, grading_home, monkeypatch):
    from helpers import write_student

    monkeypatch.setenv("AUTOGRADER_EARLY_ROOT", "0")
    write_student(tmp_path / "01_square.ipynb", "01_square")
    kernel = Kernel(tmp_path, grading_home)
    try:
        started = kernel.execute("from autograder import lab, selfcheck\nprint(json.dumps(selfcheck.grading_root()))")
        assert json.loads(started["stdout"].strip().splitlines()[-1]) is None
        assert kernel.self_check()["root"]
    finally:
        kernel.close()


def test_a_self_check_after_the_root_died_starts_another(kernel):
    first = kernel.self_check()
    os.kill(first["root"], signal.SIGKILL)
    assert _gone(first["root"])
    again = kernel.self_check()
    assert again["root"] not in (None, first["root"]) and again["score"] == again["max"] == 3
    assert kernel.self_check()["root"] == again["root"]


def test_a_kernel_killed_while_its_root_starts_takes_the_root_along(kernel):
    """The kernel dies before its root has finished importing, and a child the kernel forked (a learner's
    multiprocessing worker) still holds the root's control socket open: the root leaves all the same."""
    started = kernel.execute(
        "import os, time\nfrom autograder.engine import grading\n"
        "_sandbox = grading.new_sandbox(own_session=True).start()\n"
        "_child = os.fork()\n"
        "if _child == 0:\n    time.sleep(300)\n    os._exit(0)\n"
        "print(json.dumps([_sandbox.root_pid, _child]))")
    root, child = json.loads(started["stdout"].strip().splitlines()[-1])
    try:
        os.kill(kernel.pid, signal.SIGKILL)          # the kernel's process only: its child lives on
        assert _gone(root, waiting=60), f"the grading root {root} outlived its kernel"
    finally:
        os.kill(child, signal.SIGKILL)
