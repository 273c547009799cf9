"""The judge: grades one notebook, a fork of the root process. It never runs the learner's code.

    the job (cells, limits)  ->  fork the learner's starter  ->  read the test cells (a frame of their own)
    the starter starts the learner's sandbox, as our own child  ->  setup + answer cells run there, once
        ->  `ready`: the names the answers defined, and which cells raised what (data; protocol.py)
    for each test:  the template forks a copy (the one fork its seccomp filter lets through, with our leave)
        ->  a fork of this process runs the test cell, the learner's names bound to proxies (`proxy.Remote`)
        ->  the verdict, computed there

Everything the learner's side sends is checked against protocol.py and decides no status: pass, fail, error
and timeout come from the test's own run, our clock and our own children. Time limits: one for the answer
cells (a loop there ends every test of the notebook at once, with that reason), one per test. A test that
times out, or a sandbox that stops answering, takes the whole sandbox (the process group of our child); the
next test gets a fresh one from the starter (`Limits.restarts` at most).
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import socket
import tempfile
import time

from autograder import shared
from autograder.sandbox import cells, cgroup, codec, confine, learner, protocol, proxy, seccomp, warm
from autograder.sandbox.cells import Outcome
from autograder.sandbox.channel import Channel, ChannelClosed, ChannelTimeout, CodecError, recv_fd, send_fd

ANSWER_TIMEOUT = ("time limit exceeded while running your answer cells: is there an infinite loop, or work "
                  "far larger than the exercise needs? (the answers run once, before any test)")
TEST_TIMEOUT = ("time limit exceeded while running the test on your code: is there an infinite loop, or work "
                "far larger than the exercise needs?")


def grade_notebook(job: dict, read_roots: list, read_tests=None) -> dict:
    """{"outcomes": [Outcome as dict per test], "notes": [...], "output": answers' output}.

    `read_tests()` gives the test cells and the seed; it is called only once the learner's starter is forked,
    so no learner process is ever a copy of a process that held the hidden tests or the course's base seed
    (without it, `job["tests"]` and `job["seed"]`)."""
    workdir = tempfile.mkdtemp(prefix="grading-")
    judge = group = None
    try:
        os.chmod(workdir, 0o700)
        confine.limit_address_space(job["limits"]["judge_memory_mb"])
        if job["limits"]["isolation"] != "none":
            group = cgroup.memory_group(job["limits"]["group_memory_mb"] << 20)
        job["memory_group"] = group.folder if group is not None else None
        judge = Judge(job, workdir, read_roots)
        try:  # before the starter: every learner copy and every test's judge inherits it
            warm.run(job.get("warm", []))
        except Exception:  # noqa: BLE001 - a warm-up only saves time; the tests pay for what it did not do
            pass
        judge.start_starter()
        if read_tests is not None:
            job["tests"], job["seed"] = read_tests()
        return judge.run()
    finally:
        if judge is not None:
            judge.stop_learner()
            judge.stop_starter()
        if group is not None:
            group.remove()
        shutil.rmtree(workdir, ignore_errors=True)


def died(status) -> Outcome:
    if status is None:
        how = "ended"
    elif os.WIFSIGNALED(status):
        how = f"was killed by signal {os.WTERMSIG(status)}"
    else:
        how = f"exited with code {os.WEXITSTATUS(status)}"
    return Outcome("error", f"the process running your code {how} (os._exit, sys.exit, a crash, or the memory "
                            "limit). Nothing was graded after that.", "process-died", details={"exit": how})


STALLED = "the process running your answers stopped responding to the grader."
FORGED_READY = ("the process running your answers reported them twice, so one report was forged: no report of "
                "your answers was believed, and the tests it reached were not graded.")
BROKE = ("the process running your answers sent the grader something it never sends ({why}): does an answer "
         "cell write to file descriptors it did not open?")


class LearnerLost(Exception):
    """The learner's sandbox is gone or broke the protocol; `outcome` says how, for the test at hand."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.feedback)
        self.outcome = outcome


class Judge:
    def __init__(self, job: dict, workdir: str, read_roots: list):
        self.job, self.workdir, self.read_roots = job, workdir, read_roots
        self.limits = job["limits"]
        self.labels = {label for label, _ in job["cells"]}
        self.pid = self.fds = self.control = self.listener = None  # the learner's sandbox, our own child
        self.starter = self.starter_pid = None
        self.isolation: dict = {}
        self.setup_namespace: dict = {}
        self.learner_peak_mb = 0.0
        self.fork_leave = 0
        self.starts = 0
        self.names: dict = {}
        self.failures: list = []
        self.answers_seconds = 0.0
        self.output = ""
        self.forged_ready = False

    # ------------------------------------------------------------------------------ the learner's sandbox
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
            _kill(self.starter_pid)
            self.starter = self.starter_pid = None

    def _new_sandbox(self) -> tuple[int, socket.socket, socket.socket]:
        """(pid, fds, control) of a new learner sandbox: our own child, forked by the starter (or here)."""
        if self.starter is None:
            return learner.spawn_sandbox(self.job, self.workdir, self.read_roots, sibling=False)
        self.starter.send(b"start")
        message, sockets, _, _ = socket.recv_fds(self.starter, 256, 2)
        if len(sockets) != 2:
            for fd in sockets:
                os.close(fd)
            raise OSError("the learner's starter did not start a sandbox")
        pid = json.loads(message)["pid"]
        try:
            os.waitpid(pid, os.WNOHANG)  # the kernel's word that it is our child (the starter's is not enough)
        except ChildProcessError:
            for fd in sockets:
                os.close(fd)
            raise OSError("the learner's sandbox is not the judge's child") from None
        return pid, socket.socket(fileno=sockets[0]), socket.socket(fileno=sockets[1])

    def start_learner(self) -> Outcome | None:
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
            try:
                hello = protocol.check("hello", json.loads(message))
            except (ValueError, protocol.ProtocolError):
                if fd is not None:
                    os.close(fd)
                raise LearnerLost(self._lost())
            self.isolation = dict(hello["isolation"])
            self.listener = fd if self.isolation.get("seccomp") else None
            if fd is not None and self.listener is None:
                os.close(fd)
            ready = self._until("ready", start + self.limits["seconds_per_test"])
            if ready is None:
                raise LearnerLost(Outcome("timeout", ANSWER_TIMEOUT, "timeout"))
        except LearnerLost as lost:
            self.stop_learner()
            return lost.outcome
        except OSError:
            return self._lost()
        self.answers_seconds = time.monotonic() - start
        self.names = ready["names"]
        self.failures = self._failures(ready["failures"])
        self.output = ready["output"][-4000:]
        return None

    def stop_learner(self, grace: float = 0.0):
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
                _kill(self.pid, group=True, reap=False)  # whatever of its group is left
            elif time.monotonic() >= deadline:
                status = _kill(self.pid, group=True)
            else:
                time.sleep(0.005)
        for channel in (self.fds, self.control):
            channel.close()
        if self.listener is not None:
            os.close(self.listener)
        self.pid = self.fds = self.control = self.listener = None
        return status

    def _lost(self) -> Outcome:
        """The sandbox's channel closed: it died; how, its own status says (our fork: the kernel's word)."""
        return died(self.stop_learner(grace=1.0))

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

    # ------------------------------------------------------------------------------------- waiting
    def _wait(self, fds: list, deadline: float) -> list:
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

    def _until(self, op: str, deadline: float) -> dict | None:
        """The learner's next control message `op`, checked against the protocol (others of its kinds are
        skipped); None past the deadline. LearnerLost when its sandbox is gone or sent anything else."""
        while self._wait([self.control.fileno()], deadline):
            try:
                header, buffers = self.control.recv(deadline)
            except ChannelTimeout:
                return None
            except (ChannelClosed, OSError):
                raise LearnerLost(self._lost())
            except CodecError as error:
                self.stop_learner()
                raise LearnerLost(Outcome("error", BROKE.format(why=error), "protocol"))
            kind = header.get("op") if not buffers else None
            if kind not in ("ready", "forked", "ended"):
                self.stop_learner()
                raise LearnerLost(Outcome("error", BROKE.format(why="an unknown message"), "protocol"))
            try:
                message = protocol.check(kind, header)
            except protocol.ProtocolError as error:
                self.stop_learner()
                raise LearnerLost(Outcome("error", BROKE.format(why=error), "protocol"))
            if kind == "ready" and op != "ready":
                # The answers are reported once: a second report means one of the two was forged, and
                # neither is believed (its failures and output are dropped; the judge's own note says why).
                self.forged_ready = True
                self.failures, self.output = [], ""
                self.stop_learner()
                raise LearnerLost(Outcome("error", BROKE.format(why="a second report of the answers"), "protocol"))
            if kind == op:
                return message
        return None

    # ------------------------------------------------------------------------------------ the notebook
    def run(self) -> dict:
        tests = self.job["tests"]
        self._run_setup()
        failure = self.start_learner()
        if failure is not None:
            return self._all(failure)
        outcomes = []
        for grade_id, source in tests:
            if self.pid is None:  # a test timed out or the sandbox stalled: a fresh one runs the answers again
                failure = self.start_learner() if self.starts <= self.limits["restarts"] else \
                    Outcome("error", STALLED, "learner-stalled")
                if failure is not None:
                    outcomes += [self._with_isolation(Outcome(failure.status, failure.feedback, failure.mistake,
                                                              details=dict(failure.details)))
                                 for _ in range(len(tests) - len(outcomes))]
                    break
            outcome = self._test(grade_id, source)
            outcome = _answer_cell_cause(outcome, self.failures)
            outcome.details.setdefault("phases", {})["answers"] = round(self.answers_seconds / max(len(tests), 1), 4)
            outcomes.append(self._with_isolation(outcome))
        notes = [f"your answer cell `{f['cell']}` raised an error after defining its names: {f['outcome'].feedback}"
                 for f in self.failures if not f["setup"]]
        if self.forged_ready:
            notes = [FORGED_READY]
        return {"outcomes": outcomes, "notes": notes, "output": self.output,
                "answers_seconds": round(self.answers_seconds, 4)}

    def _with_isolation(self, outcome: Outcome) -> Outcome:
        isolation = dict(self.isolation, strong=strong(self.isolation))
        if isolation.get("memory_cgroup") and self.job.get("memory_group"):
            isolation["memory_cgroup"] = os.path.basename(self.job["memory_group"])  # the judge's own record
        outcome.details.update(isolation=isolation)
        return outcome

    def _all(self, outcome: Outcome) -> dict:
        return {"outcomes": [self._with_isolation(Outcome(outcome.status, outcome.feedback, outcome.mistake,
                                                          details=dict(outcome.details)))
                             for _ in self.job["tests"]], "notes": [], "output": ""}

    def _run_setup(self) -> None:
        """The setup cells run here too (they are the course's): the tests see their names."""
        namespace = {"__name__": "__main__", "get_ipython": cells.NoIPython}
        for label, source in self.job["cells"]:
            if not label.startswith("answer"):
                cells.run(cells.compile_cell(source, label), namespace, label)
        self.setup_namespace = namespace

    # ----------------------------------------------------------------------------------------- a test
    def _test(self, grade_id: str, source: str) -> Outcome:
        start = time.monotonic()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.fork_leave = 1
        try:
            send_fd(self.fds, b'{"op": "fork"}', theirs.fileno())
            forked = self._until("forked", start + self.limits["fork_seconds"])
        except LearnerLost as lost:
            ours.close()
            return lost.outcome
        except OSError:
            ours.close()
            return self._lost()
        finally:
            theirs.close()
            self.fork_leave = 0
        if forked is None or not forked["ok"]:
            ours.close()
            self.stop_learner()
            return Outcome("error", STALLED, "learner-stalled")
        results_r, results_w = os.pipe()
        judge_pid = os.fork()
        if judge_pid == 0:
            os.close(results_r)
            _judge_child(grade_id, source, self.names, ours, results_w, self)
        os.close(results_w)
        ours.close()
        forked_at = time.monotonic()
        outcome = self._result(results_r, judge_pid, start + self.limits["seconds_per_test"])
        os.close(results_r)
        if outcome.status == "timeout":
            self.stop_learner()  # the copy may still be running: the whole sandbox goes, the next test gets a new one
            status = None
        else:
            status = self._end_test()
        if outcome.mistake == "learner-gone":
            outcome = died(status)
        outcome.seconds = round(time.monotonic() - start, 4)
        outcome.details.setdefault("phases", {}).update(fork=round(forked_at - start, 4))
        judges = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        outcome.details["child_maxrss_mb"] = round(max(judges, self.learner_peak_mb), 1)
        return outcome

    def _result(self, fd: int, pid: int, deadline: float) -> Outcome:
        data = b""
        while True:
            if not self._wait([fd], deadline):
                _kill(pid)
                return Outcome("timeout", TEST_TIMEOUT, "timeout")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            data += chunk
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        try:
            message = json.loads(data)
            return Outcome(message["status"], message["feedback"], message["mistake"],
                           details=message.get("details", {}))
        except (ValueError, KeyError, TypeError):
            return Outcome("error", "the grader failed on this test; tell your instructor.", "grader-error")

    def _end_test(self):
        """The test's copy is done (its channel closed): the sandbox reports how it ended, or goes. Its exit
        status is only ever words in the feedback."""
        try:
            message = self._until("ended", time.monotonic() + self.limits["end_seconds"])
        except LearnerLost:
            return None
        if message is None:
            self.stop_learner()
            return None
        self.learner_peak_mb = float(message.get("peak_mb", 0.0))
        return message.get("status")


def strong(isolation: dict) -> bool:
    """The layers a class is graded with by default: namespaces with the read-only root, Landlock and seccomp
    all in force."""
    return bool(isolation.get("namespaces") and isolation.get("read_only_root") and isolation.get("landlock")
                and isolation.get("seccomp"))


def _kill(pid: int, group: bool = False, reap: bool = True):
    """Kill our own fork `pid` (with `group`, every process of the group it leads) and reap it: its status."""
    for kill in ((os.killpg, os.kill) if group else (os.kill,)):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if not reap:
        return None
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


def _answer_cell_cause(outcome: Outcome, failures: list) -> Outcome:
    """A name the test could not find because its answer cell raised first: that error is the cause. Only
    the feedback changes, and only for a test that did not pass; the status stays the judge's."""
    answer_failures = [f for f in failures if not f["setup"]]
    setup_failures = [f for f in failures if f["setup"]]
    if setup_failures and outcome.status != "passed":
        f = setup_failures[0]
        return Outcome("error", f"a setup cell of the course failed ({f['outcome'].feedback}); tell your "
                                "instructor.", "setup-error", details=outcome.details)
    if answer_failures and outcome.status != "passed" and outcome.mistake in ("not-defined", "name-error"):
        f = answer_failures[0]
        cause = f["outcome"]
        return Outcome(cause.status, f"your answer cell `{f['cell']}` raised an error: {cause.feedback}",
                       cause.mistake or "exception", details=outcome.details)
    return outcome


def _judge_child(grade_id: str, source: str, names: dict, sock: socket.socket, results_w: int, judge: Judge):
    """A fresh judge process for one test: the test cell runs here, against proxies of the learner's names."""
    try:
        judge.control.close()
        judge.fds.close()
        if judge.listener is not None:
            os.close(judge.listener)
        shared.set_base_seed(judge.job["seed"])
        link = proxy.Link(Channel(sock))
        shared.attach_learner(link)
        namespace = {name: codec.decode(info["value"], []) if type(info.get("value")) is dict
                     else proxy.Remote(link, info["h"], info) for name, info in names.items()}
        namespace.update(judge.setup_namespace)
        start = time.perf_counter()
        outcome = cells.run(cells.compile_cell(source, grade_id, ipython=False), namespace, grade_id, is_test=True)
        outcome = outcome or Outcome("passed")
        outcome.details["check_seconds"] = round(time.perf_counter() - start, 4)
        outcome.details["phases"] = {"check": outcome.details["check_seconds"]}
        try:
            link.channel.send(*codec.encode({"op": "end"}))
        except OSError:
            pass
    except proxy.LearnerGone:
        outcome = Outcome("error", "the process running your code ended", "learner-gone")
    except BaseException as error:  # noqa: BLE001 - the grader's own failure, reported as such
        outcome = Outcome("error", f"the grader failed on this test ({type(error).__name__}: {error}); "
                                   "tell your instructor.", "grader-error")
    data = json.dumps({"status": outcome.status, "feedback": outcome.feedback, "mistake": outcome.mistake,
                       "details": outcome.details}, default=str).encode()
    while data:
        data = data[os.write(results_w, data):]
    os._exit(0)
