"""The grader's side: `Sandbox`, its handle on the root process (root.py), which it starts on first use and
shares between worker threads. Grading a notebook hands the root one socket; the judge the root forks for
it reads the job there and replies there. The grader never imports PyTorch."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass

from autograder.engine.sandbox.channel import Channel, ChannelClosed, CodecError, send_fd
from autograder.engine.sandbox import protocol, warm
from autograder.engine.sandbox.limits import Limits
from autograder.engine.sandbox.verdicts import Graded, Runner

_root: dict = {}                # "process", "control": the root process and the socket that asks it for judges
_root_lock = threading.Lock()


@dataclass(frozen=True)
class RootKind:
    """How a root is started and what it prepares (root.prepare): for a class (every warm-up, huge pages) or a
    single grade; in a session of its own (a kernel's root: the kernel's interrupts, SIGINT to its process group,
    are not the root's), and the warm-ups (warm.RUN's names) it runs once for all its judges besides the course's."""
    for_a_class: bool = False
    own_session: bool = False
    warm_ups: tuple = ()


def _running_root(kind: RootKind = RootKind()) -> int:
    """The root process's pid, started if it is not running (call with `_root_lock` held). A root already
    running stays as it started (root.prepare: a class's or a single grade's)."""
    if _root.get("process") is None or _root["process"].poll() is not None:
        _start_root(kind)
    return _root["process"].pid


def _ask_root_for_judge(channel_end: socket.socket, kind: RootKind = RootKind()) -> int:
    """Hand `channel_end` to the root (started if need be), which forks a judge serving it; the root's pid."""
    with _root_lock:
        for _ in range(2):
            _running_root(kind)
            try:
                send_fd(_root["control"], b"judge", channel_end.fileno())
                return _root["process"].pid
            except OSError:
                _root["process"].kill()  # a root that cannot take requests: start another
                _root["process"].wait()
        raise RuntimeError("the grading root process cannot be started")


def running_root() -> int | None:
    """The root process's pid while it runs, else None."""
    with _root_lock:
        process = _root.get("process")
        return process.pid if process is not None and process.poll() is None else None


def stop_root() -> None:
    """End the root process (its control socket closed: it leaves; killed if it has not within a few seconds).
    The next grading starts another."""
    with _root_lock:
        process, control = _root.pop("process", None), _root.pop("control", None)
    if control is not None:
        control.close()
    if process is not None:
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# What of the grader's environment the root process (and so every judge and learner) may see: where programs
# and libraries are, the locale, the time zone, the temporary folder.
ROOT_ENVIRONMENT = ("PATH", "LD_LIBRARY_PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")


def _start_root(kind: RootKind = RootKind()) -> None:
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    python_path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
    # Every process below the root is a fork of it and its environment block is readable there
    # (/proc/self/environ, its own memory): it gets an allow-list, never the grader's secrets.
    env = {k: os.environ[k] for k in ROOT_ENVIRONMENT if k in os.environ}
    env.update(PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OMP_THREAD_LIMIT="1", MPLBACKEND="Agg",
               PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=python_path)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    warm_ups = [name for name in kind.warm_ups if name in warm.RUN]  # names the root knows, nothing else
    main = (f"from autograder.engine.sandbox.root import root_main; "
            f"root_main({theirs.fileno()}, {bool(kind.for_a_class)}, {warm_ups!r}, {os.getpid()})")
    with theirs:
        _root["process"] = subprocess.Popen([sys.executable, "-c", main], stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, env=env, cwd=tempfile.gettempdir(),
                                            pass_fds=[theirs.fileno()], start_new_session=kind.own_session)
    _root["control"] = ours


class Sandbox(Runner):
    """The grader's handle on the root process, a Runner: each `run` grades one notebook in a judge of its own,
    so worker threads may share one handle."""

    def __init__(self, protected: list | None = None, for_a_class: bool = False, own_session: bool = False,
                 warm_ups: tuple = ()):
        self.protected = [str(p) for p in (protected or [])]
        self.for_a_class = for_a_class  # the root it starts prepares for many notebooks (root.prepare)
        self.root_kind = RootKind(for_a_class, own_session, tuple(warm_ups))
        self.root_pid = None
        self.landlock = 0

    @property
    def pid(self):
        """The process that forks this sandbox's judges (the root: shared by every Sandbox of a grader)."""
        return self.root_pid

    def start(self) -> "Sandbox":
        """Start the root process if it is not running (it imports PyTorch meanwhile; the first judge waits for
        it). No judge is forked just to say hello: a root that cannot start fails the first grading, per test."""
        from autograder.engine.sandbox import confine  # ctypes only: no PyTorch in the grader

        with _root_lock:
            self.root_pid = _running_root(self.root_kind)
        self.landlock = confine.landlock_abi()
        return self

    def exchange(self, job: dict) -> dict:
        """One job to a fresh judge; its reply as it came (protocol.py: `graded` or `failed`), or {"error": why}.
        A job's test cells and seed go in a frame of their own (`tests`), after the rest (`job`): the judge
        reads them only once the process that starts the learner's sandboxes exists (judge.grade_notebook)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with theirs:
            self.root_pid = _ask_root_for_judge(theirs, self.root_kind)
        channel = Channel(ours, protocol.MAX_GRADED_FRAME)
        secret = ("tests", "seed")
        try:
            try:
                channel.send({k: v for k, v in job.items() if k not in secret}, [])
                channel.send({"tests": job.get("tests"), "seed": job.get("seed", 0)}, [])
            except OSError:
                pass  # a judge that refused the job before reading all of it may still have said why
            reply = channel.recv()[0]
        except (ChannelClosed, OSError, CodecError):
            reply = {"error": "the judge process died"}
        finally:
            channel.close()
        return reply

    def run(self, before: list, tests: list, seed: int = 0, limits: Limits | None = None) -> Graded:
        """Grade one notebook: `before` [(label, source)] setup and answers in order, `tests` [(grade_id,
        source)]. The judge's `failed` reply, or anything that is not its `graded`, is the grader's failure."""
        limits = limits or Limits()
        job = {"cells": [list(c) for c in before], "tests": [list(t) for t in tests], "seed": int(seed),
               "limits": asdict(limits), "protected": self.protected,
               "warm": warm.needed([source for _, source in tests])}
        reply = self.exchange(job)
        try:
            if type(reply) is dict and "error" in reply:
                return Graded.failed(len(tests), protocol.check("failed", reply)["error"])
            return Graded.from_wire(reply, len(tests))
        except protocol.ProtocolError as error:
            return Graded.failed(len(tests), f"the judge broke the protocol: {error}")

    def close(self) -> None:
        """Nothing of this handle's runs between gradings (the root is the grader's, and leaves with it)."""
