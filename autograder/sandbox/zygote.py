"""Zygotes: processes that imported PyTorch and the checks and never run the learner's code; each forks a
judge for each notebook. One root process per grader does the imports (3-4 s) and forks a zygote for every
`Sandbox`, the grader's handle on one (a worker thread's). They speak JSON frames (never pickle)
over Unix sockets."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path

from autograder.sandbox.cells import Outcome, STATUSES
from autograder.sandbox.channel import Channel, ChannelClosed, CodecError, recv_fd, send_fd
from autograder.sandbox.limits import Job, Limits


def _send(channel: Channel, message: dict) -> None:
    channel.send(message, [])  # plain JSON: the grader's side never imports PyTorch


def _recv(channel: Channel) -> dict:
    return channel.recv()[0]


def _outcome(data) -> Outcome:
    if type(data) is not dict or data.get("status") not in STATUSES:
        return Outcome("error", "the grader failed on this test; tell your instructor.", "grader-error")
    details = data.get("details") if type(data.get("details")) is dict else {}
    return Outcome(data["status"], str(data.get("feedback", "")), str(data.get("mistake", "")),
                   str(data.get("output", "")), float(data.get("seconds", 0.0) or 0.0), details)


# ---------------------------------------------------------------------------------------- the zygote

def prepare() -> None:
    """Everything the forks share, imported and warmed up once."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # OpenMP reads this once, when PyTorch loads it: every parallel region then runs on this one thread, so
    # an answer's torch.set_num_threads(4) is harmless instead of a refused thread (libgomp exits on that).
    os.environ["OMP_THREAD_LIMIT"] = "1"
    import numpy  # noqa: F401
    import numpy.testing  # noqa: F401  (watched by the integrity checkpoint: import it before any answer)
    import torch

    torch.set_num_threads(1)  # one thread per grading process; keeps fork() safe with OpenMP
    import matplotlib.pyplot  # noqa: F401  (answer or setup cells may import pyplot)
    import IPython.core.inputtransformer2  # noqa: F401  (cells may hold magics)
    import torch.func  # noqa: F401
    import torch.library  # noqa: F401
    import torch.utils.checkpoint  # noqa: F401
    import torch._dynamo  # noqa: F401  (it rebinds torch.manual_seed on import: before the integrity baseline)
    import autograder.checks as checks_pkg
    import autograder.sandbox.judge  # noqa: F401  (and the learner's side: the forks do not import them again)

    for module in sorted(p.stem for p in Path(checks_pkg.__file__).parent.glob("*.py")):
        if not module.startswith("_"):
            __import__(f"autograder.checks.{module}")
    # The first gradcheck in a process costs 0.3-0.5 s of lazy initialisation: pay it once, here.
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
    torch.autograd.grad((x.exp() * x).sum(), x, create_graph=True)


def root_main(fd: int) -> None:
    """The root process: import everything once, then fork a zygote for each socket the grader sends over
    the control socket `fd`. It leaves when the grader does."""
    control = socket.socket(fileno=fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1):
        os.dup2(devnull, stream)
    os.close(devnull)
    prepare()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the zygotes
    while _parent_alive(control):
        try:
            message, channel_fd = recv_fd(control)
        except OSError:
            return
        if not message or channel_fd is None:
            return
        if os.fork() == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # a zygote waits for its judges
            zygote_main(Channel(socket.socket(fileno=channel_fd)))
            os._exit(0)
        os.close(channel_fd)


def _parent_alive(sock) -> bool:
    """Wait until `sock` is readable; False if this process's parent ended meanwhile (a fork of the grader
    may still hold the socket's other end open, so its end of stream is not enough)."""
    parent = os.getppid()
    while not select.select([sock], [], [], 5.0)[0]:
        if os.getppid() != parent:
            return False
    return True


def zygote_main(channel: Channel) -> None:
    """Serve one Sandbox: one job (a notebook) at a time, each judged in a fork."""
    from autograder.sandbox import confine

    roots: dict = {}
    _send(channel, {"ready": True, "pid": os.getpid(), "root": os.getppid(), "landlock": confine.landlock_abi()})
    while True:
        if not _parent_alive(channel):  # the root left, so the grader did: leave
            return
        try:
            job = _recv(channel)
        except (ChannelClosed, CodecError):
            return
        if type(job) is not dict:
            return
        key = tuple(job["protected"])
        if key not in roots:
            roots[key] = learner_read_roots(list(job["protected"]))
        _judge_in_fork(job, roots[key], channel)


# What the learner's process may read besides its own folder: the libraries it may still import (lazily),
# the system libraries they may load, and the few files C libraries read. Never a home, a checkout or /tmp.
_SYSTEM_READABLE = ["/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib", "/usr/share/zoneinfo",
                    "/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
                    "/sys/devices/system/cpu", "/dev/urandom", "/dev/random", "/dev/zero"]


def learner_read_roots(protected: list) -> list[str]:
    """The learner's file-system allow-list: the Python installation and its packages (wherever they live),
    this grading package, and the system files above, minus the protected trees (answers, hidden tests,
    zoo, gradebook) wherever one lies inside them. The package's parent (a checkout) is not on it."""
    from autograder.sandbox import confine

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    checkout = os.path.dirname(package)
    libraries = {sys.prefix, sys.exec_prefix, sys.base_prefix, *sysconfig.get_paths().values()}
    libraries |= {p for p in sys.path if p and os.path.isdir(p) and os.path.realpath(p) != os.path.realpath(checkout)}
    return confine.allowed_roots([*libraries, package, *_SYSTEM_READABLE], protected)


def _judge_in_fork(job: dict, read_roots: list, channel: Channel) -> None:
    """Judge a notebook in a fork that replies to the grader itself: nothing its tests did stays here."""
    from autograder.sandbox import judge

    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            try:
                result = judge.grade_notebook(job, read_roots)
                reply = dict(result, outcomes=[asdict(o) for o in result["outcomes"]])
            except BaseException as error:  # noqa: BLE001 - the grader's own failure, for its report
                reply = {"error": f"{type(error).__name__}: {error}"}
            _send(channel, reply)
            status = 0
        finally:
            os._exit(status)
    if os.waitpid(pid, 0)[1] != 0:  # it died before replying
        _send(channel, {"error": "the judge process died"})


# ------------------------------------------------------------------------------------ grader's handle

_root: dict = {}                # "process", "control": the root process and the socket that asks it for zygotes
_root_lock = threading.Lock()


def _ask_root_for_zygote(channel_end: socket.socket) -> None:
    """Hand `channel_end` to the root (started if need be), which forks a zygote serving it."""
    with _root_lock:
        for _ in range(2):
            if _root.get("process") is None or _root["process"].poll() is not None:
                _start_root()
            try:
                send_fd(_root["control"], b"zygote", channel_end.fileno())
                return
            except OSError:
                _root["process"].kill()  # a root that cannot take requests: start another
                _root["process"].wait()


def _start_root() -> None:
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    python_path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OMP_THREAD_LIMIT="1", MPLBACKEND="Agg",
               PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=python_path)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    main = f"from autograder.sandbox.zygote import root_main; root_main({theirs.fileno()})"
    with theirs:
        _root["process"] = subprocess.Popen([sys.executable, "-c", main], stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, env=env, cwd=tempfile.gettempdir(),
                                            pass_fds=[theirs.fileno()])
    _root["control"] = ours


class Sandbox:
    """A zygote process and the channel to it. One per worker thread; not re-entrant."""

    def __init__(self, protected: list | None = None):
        self.protected = [str(p) for p in (protected or [])]
        self.pid = self.root_pid = self.channel = None
        self.landlock = 0
        self.notebooks_run = 0

    def start(self) -> "Sandbox":
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with theirs:
            _ask_root_for_zygote(theirs)
        self.channel = Channel(ours)
        try:
            hello = _recv(self.channel)
        except (ChannelClosed, OSError, CodecError):
            hello = {}
        if type(hello) is not dict or not hello.get("ready") or type(hello.get("pid")) is not int:
            self.close()
            raise RuntimeError("the grading sandbox failed to start")
        self.pid, self.root_pid = hello["pid"], hello.get("root")
        self.landlock = int(hello.get("landlock", 0) or 0)
        return self

    def _alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
            return True
        except (ProcessLookupError, PermissionError, TypeError):
            return False

    def grade(self, cells: list, tests: list, seed: int = 0, limits: Limits | None = None) -> dict:
        """Grade one notebook: `cells` [(label, source)] setup and answers in order, `tests` [(grade_id,
        source)]. Returns {"outcomes": [Outcome per test], "notes": [...], "output": str}."""
        limits = limits or Limits()
        if self.channel is None or not self._alive():
            self.close()
            self.start()
        job = {"cells": [list(c) for c in cells], "tests": [list(t) for t in tests], "seed": int(seed),
               "limits": asdict(limits), "protected": self.protected}
        try:
            _send(self.channel, job)
            result = _recv(self.channel)
        except (ChannelClosed, OSError, CodecError):
            self.close()
            result = {"error": "the grading process died"}
        self.notebooks_run += 1
        if type(result) is not dict or "error" in result or type(result.get("outcomes")) is not list:
            reason = result.get("error", "") if type(result) is dict else ""
            return {"outcomes": [Outcome("error", f"the grader failed on this notebook ({reason}); tell your "
                                                  "instructor.", "grader-error") for _ in tests],
                    "notes": [], "output": ""}
        outcomes = [_outcome(o) for o in result["outcomes"]]
        for outcome in outcomes:
            outcome.output = str(result.get("output", ""))
        return {"outcomes": outcomes, "notes": [str(n) for n in result.get("notes", [])],
                "output": str(result.get("output", ""))}

    def isolation(self, limits: Limits | None = None) -> dict:
        """The isolation a grading gets here, measured by grading an empty notebook."""
        outcome = self.grade([], [("isolation", "pass\n")], limits=limits)["outcomes"][0]
        isolation = outcome.details.get("isolation")
        return dict(isolation) if type(isolation) is dict else {}

    def run(self, job: Job) -> Outcome:
        """One test (a notebook of one test cell): for tests of the sandbox itself."""
        return self.grade(job.cells, [(job.test_id, job.test_source)], job.seed, job.limits)["outcomes"][0]

    def close(self) -> None:
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)  # the root reaps it
            except ProcessLookupError:
                pass
        if self.channel is not None:
            self.channel.close()
        self.pid = self.channel = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
