"""The judge's side of the learner's sandbox: starting it, reading what it reports, stopping it.

The sandbox is the judge's own child, forked by the learner's starter (a fork of the judge taken before it
read any test cell) or, where clone(CLONE_PARENT) is not available, by the judge itself. Everything it sends is
checked against protocol.py; a message that does not match ends the sandbox, and the test at hand gets a broken
protocol. Its pid is never read from a message: the kernel says it is our child, and its fate is its exit
status, read by us. Meanwhile its fork attempts reach the judge through its seccomp listener, and only the
ones the judge expects (a test's copy) go through.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import time

from autograder.engine.sandbox import cells, confine, learner, protocol, proxy, seccomp
from autograder.engine.sandbox.cells import Outcome
from autograder.engine.sandbox.channel import Channel, ChannelClosed, ChannelTimeout, CodecError, recv_fd, send_fd
from autograder.engine.sandbox.isolation import Isolation

ANSWER_TIMEOUT = ("time limit exceeded while running your answer cells: is there an infinite loop, or work "
                  "far larger than the exercise needs? (the answers run once, before any test)")
STALLED = "the process running your answers stopped responding to the grader."
FORGED_READY = ("the process running your answers reported them twice, so one report was forged: no report of "
                "your answers was believed, and the tests it reached were not graded.")
BROKE = protocol.LEARNER_BROKE
_CONTROL_KINDS = ("ready", "forked", "ended")


def died(status) -> Outcome:
    if status is None:
        how = "ended"
    elif os.WIFSIGNALED(status):
        how = f"was killed by signal {os.WTERMSIG(status)}"
    else:
        how = f"exited with code {os.WEXITSTATUS(status)}"
    return Outcome("error", f"the process running your code {how} (os._exit, sys.exit, a crash, or the memory "
                            "limit). Nothing was graded after that.", "process-died", details={"exit": how})


def broke(why) -> Outcome:
    """A test's outcome when the learner's process broke the protocol."""
    return Outcome("error", BROKE.format(why=why), "protocol")


class LearnerLost(Exception):
    """The learner's sandbox is gone or broke the protocol; `outcome` says how, for the test at hand."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.feedback)
        self.outcome = outcome


def read_started(message: bytes, sockets: list) -> tuple[int, list]:
    """The starter's `started`: (pid, the sandbox's two sockets); OSError (every socket closed) if it is not
    one, or if it says no sandbox started. The pid is still to be confirmed as our child (`_new_sandbox`)."""
    try:
        pid = protocol.check_json("started", message, 256)["pid"]
        if pid < 1 or len(sockets) != 2:
            raise protocol.ProtocolError("no sandbox started")
    except protocol.ProtocolError as error:
        for fd in sockets:
            os.close(fd)
        raise OSError(f"the learner's starter did not start a sandbox ({error})") from None
    return pid, sockets


def read_hello(message: bytes, fd: int | None) -> tuple[Isolation, int | None]:
    """The sandbox's `hello`: (the layers it reported, its seccomp listener if it reported one); ProtocolError
    (the descriptor closed) if it is not one."""
    try:
        isolation = Isolation.from_wire(protocol.check_json("hello", message, 4096)["isolation"])
    except protocol.ProtocolError:
        if fd is not None:
            os.close(fd)
        raise
    listener = fd if isolation.seccomp else None
    if fd is not None and listener is None:
        os.close(fd)
    return isolation, listener


class LearnerSandbox:
    """One notebook's learner sandbox, as the judge holds it: a new one after a timeout or a stall."""

    def __init__(self, job: dict, workdir: str, read_roots: list):
        self.job, self.workdir, self.read_roots = job, workdir, read_roots
        self.limits = job["limits"]
        self.labels = {label for label, _ in job["cells"]}
        self.pid = self.fds = self.control = self.listener = None  # the sandbox, our own child
        self.starter = self.starter_pid = None
        self.isolation = Isolation()  # the layers it reported in `hello`
        self.peak_mb = 0.0          # the largest of its test copies so far (its `ended`)
        self.fork_leave = 0         # fork attempts the seccomp listener lets through
        self.starts = 0
        self.names: dict = {}       # what its `ready` reported: the answers' names ...
        self.failures: list = []    # ... the cells that raised (described here) ...
        self.answers_seconds = 0.0
        self.output = ""            # ... and what they printed
        self.forged_ready = False

    # ---------------------------------------------------------------------------------- the starter
    def start_starter(self) -> None:
        """Fork the learner's starter while this process holds no test cell: every learner sandbox of the
        notebook (a restart included) is forked from it, so none is a copy of a process that held them."""
        if not confine.linux():  # no clone(CLONE_PARENT): the sandbox is forked here (a preview grade)
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            ours.close()
            try:
                learner.starter_main(theirs, self.job, self.workdir, self.read_roots)
            finally:
                os._exit(70)
        theirs.close()
        self.starter, self.starter_pid = ours, pid

    def stop_starter(self) -> None:
        if self.starter is not None:
            self.starter.close()  # it leaves at end of stream
            kill(self.starter_pid)
            self.starter = self.starter_pid = None

    def _new_sandbox(self) -> tuple[int, socket.socket, socket.socket]:
        """(pid, fds, control) of a new learner sandbox: our own child, forked by the starter (or here)."""
        if self.starter is None:
            return learner.spawn_sandbox(self.job, self.workdir, self.read_roots, sibling=False)
        self.starter.send(protocol.SIGNALS["start"])
        message, sockets, _, _ = socket.recv_fds(self.starter, 256, 2)
        pid, sockets = read_started(message, sockets)
        try:
            os.waitpid(pid, os.WNOHANG)  # the kernel's word that it is our child (the starter's is not enough)
        except ChildProcessError:
            for fd in sockets:
                os.close(fd)
            raise OSError("the learner's sandbox is not the judge's child") from None
        return pid, socket.socket(fileno=sockets[0]), socket.socket(fileno=sockets[1])

    # ---------------------------------------------------------------------------------- the sandbox
    def start(self) -> Outcome | None:
        """Start a learner sandbox and wait until its answers ran: None, or what happened instead."""
        self.starts += 1
        start = time.monotonic()
        try:
            pid, fds, control = self._new_sandbox()
        except (OSError, ValueError, KeyError, TypeError) as error:
            return Outcome("error", f"the grader could not start a sandbox ({error}); tell your instructor.",
                           "grader-error")
        self.pid, self.fds, self.control = pid, fds, Channel(control, protocol.MAX_CONTROL_FRAME)
        try:
            if not select.select([fds], [], [], self.limits["fork_seconds"])[0]:
                raise LearnerLost(Outcome("error", STALLED, "learner-stalled"))
            message, fd = recv_fd(fds)
            if not message:  # end of stream: it died before it said hello
                if fd is not None:
                    os.close(fd)
                raise LearnerLost(self.lost())
            try:
                self.isolation, self.listener = read_hello(message, fd)
            except protocol.ProtocolError as error:
                raise LearnerLost(broke(error))
            ready = self.until("ready", start + self.answers_limit())
            if ready is None:
                raise LearnerLost(Outcome("timeout", ANSWER_TIMEOUT, "timeout"))
        except LearnerLost as lost:
            self.stop()
            return lost.outcome
        except OSError:
            return self.lost()
        self.answers_seconds = time.monotonic() - start
        self.names = ready["names"]
        self.failures = self._failures(ready["failures"])
        self.output = ready["output"][-4000:]
        return None

    def answers_limit(self) -> float:
        """The judge's own bound on the setup and answer cells of one start: each answer cell has its own limit in
        the template (learner.run_cells: a cell past it fails like a raise, the next ones run), one more for the
        setup cells; an answer that escapes its cell's timer is ended here, with all of the answers."""
        answers = sum(1 for label, _ in self.job["cells"] if label.startswith("answer"))
        return self.limits["seconds_per_test"] * (answers + 1)

    def stop(self, grace: float = 0.0):
        """Kill the learner's whole sandbox (the process group of our own fork) and reap it: its status. With
        `grace`, a sandbox that is ending anyway gets that long to end by itself (its status is then its own)."""
        if self.pid is None:
            return None
        status = None
        deadline = time.monotonic() + grace
        while status is None:
            done, code = os.waitpid(self.pid, os.WNOHANG)
            if done:
                status = code
                kill(self.pid, group=True, reap=False)  # whatever of its group is left
            elif time.monotonic() >= deadline:
                status = kill(self.pid, group=True)
            else:
                time.sleep(0.005)
        self.close()
        return status

    def close(self) -> None:
        """Let go of the sandbox's channels (in a test's judge: they are the notebook judge's to use)."""
        for channel in (self.fds, self.control):
            if channel is not None:
                channel.close()
        if self.listener is not None:
            os.close(self.listener)
        self.pid = self.fds = self.control = self.listener = None

    def lost(self) -> Outcome:
        """The sandbox's channel closed: it died; how, its own status says (our fork: the kernel's word)."""
        return died(self.stop(grace=1.0))

    def _failures(self, reported: list) -> list:
        """The answer and setup cells that raised, described here from the facts reported (the learner
        names the cell and its exception; the judge decides what that means), and syntax errors found here."""
        failures, seen = [], set()
        for label, source in self.job["cells"]:
            compiled = cells.compile_cell(source, label)
            if isinstance(compiled, Outcome):
                failures.append({"cell": label, "outcome": compiled, "setup": not label.startswith("answer")})
                seen.add(label)
        for failure in reported:
            label = failure["cell"]
            if label not in self.labels or label in seen:
                continue
            seen.add(label)
            error = proxy.rebuild_error(failure["error"])  # a stand-in: its base class, message, causes
            failures.append({"cell": label, "outcome": cells.describe(error, label, is_test=False),
                             "setup": not label.startswith("answer")})
        return failures

    # ----------------------------------------------------------------------------- a test's copy
    def fork_copy(self, test_socket: socket.socket) -> Outcome | None:
        """Ask the template for a copy serving `test_socket` (its one fork, let through here): None once it
        says the copy exists, else what happened instead (the sandbox stopped)."""
        self.fork_leave = 1
        try:
            send_fd(self.fds, protocol.FORK, test_socket.fileno())
            forked = self.until("forked", time.monotonic() + self.limits["fork_seconds"])
        except LearnerLost as lost:
            return lost.outcome
        except OSError:
            return self.lost()
        finally:
            self.fork_leave = 0
        if forked is None or not forked["ok"]:
            self.stop()
            return Outcome("error", STALLED, "learner-stalled")
        return None

    def end_copy(self):
        """The test's copy is done (its channel closed): the sandbox reports how it ended, or goes. Its exit
        status is only ever words in the feedback."""
        try:
            message = self.until("ended", time.monotonic() + self.limits["end_seconds"])
        except LearnerLost:
            return None
        if message is None:
            self.stop()
            return None
        self.peak_mb = float(message.get("peak_mb", 0.0))
        return message.get("status")

    # ------------------------------------------------------------------------------------- waiting
    def wait(self, fds: list, deadline: float) -> list:
        """Wait until one of `fds` is readable or the deadline passes, answering the learner's fork attempts
        meanwhile: `self.fork_leave` of them go through (a test's copy), the rest are refused."""
        while (left := deadline - time.monotonic()) > 0:
            watch = fds + ([self.listener] if self.listener is not None else [])
            ready = select.select(watch, [], [], min(left, 1.0))[0]
            if self.listener is not None and self.listener in ready:
                ready.remove(self.listener)
                while select.select([self.listener], [], [], 0)[0]:
                    request = seccomp.next_notification(self.listener)
                    if request is None:
                        break
                    seccomp.answer_notification(self.listener, request[0], self.fork_leave > 0)
                    self.fork_leave -= self.fork_leave > 0
            if ready:
                return ready
        return []

    def until(self, op: str, deadline: float) -> dict | None:
        """The learner's next control message `op`, checked against the protocol (others of its kinds are
        skipped); None past the deadline. LearnerLost when its sandbox is gone or sent anything else."""
        while self.wait([self.control.fileno()], deadline):
            try:
                header, buffers = self.control.recv(deadline)
            except ChannelTimeout:
                return None
            except (ChannelClosed, OSError):
                raise LearnerLost(self.lost())
            except CodecError as error:
                self.stop()
                raise LearnerLost(broke(error))
            kind = header.get("op") if not buffers else None
            try:
                if kind not in _CONTROL_KINDS:
                    raise protocol.ProtocolError("an unknown message")
                message = protocol.check(kind, header)
            except protocol.ProtocolError as error:
                self.stop()
                raise LearnerLost(broke(error))
            if kind == "ready" and op != "ready":
                # The answers are reported once: a second report means one of the two was forged, and
                # neither is believed (its failures and output are dropped; the judge's own note says why).
                self.forged_ready = True
                self.failures, self.output = [], ""
                self.stop()
                raise LearnerLost(broke("a second report of the answers"))
            if kind == op:
                return message
        return None


def kill(pid: int, group: bool = False, reap: bool = True):
    """Kill our own fork `pid` (with `group`, every process of the group it leads) and reap it: its status."""
    for kill_one in ((os.killpg, os.kill) if group else (os.kill,)):
        try:
            kill_one(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if not reap:
        return None
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None
