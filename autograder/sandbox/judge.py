"""The judge: grades one notebook. It never runs the learner's code.

    learner process (confined): setup + answer cells, once   ->  ready, with the names the answers defined
    for each test:  the learner process forks a copy (with the judge's leave)  ->  a fresh judge process runs
    the test cell, the learner's names bound to proxies (`proxy.Remote`)  ->  the verdict, computed here

Time limits: one for the answer cells (a loop there ends every test of the notebook at once, with that
reason), one per test. A learner process that dies ends that test (or, during the answers, the notebook).
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

from autograder.sandbox import cells, codec, confine, learner, proxy
from autograder.sandbox.cells import Outcome
from autograder.sandbox.channel import Channel, recv_fd, send_fd

ANSWER_TIMEOUT = ("time limit exceeded while running your answer cells: is there an infinite loop, or work "
                  "far larger than the exercise needs? (the answers run once, before any test)")
TEST_TIMEOUT = ("time limit exceeded while running the test on your code: is there an infinite loop, or work "
                "far larger than the exercise needs?")


def grade_notebook(job: dict, read_roots: list) -> dict:
    """{"outcomes": [Outcome as dict per test], "notes": [...], "output": answers' output}."""
    workdir = tempfile.mkdtemp(prefix="grading-")
    os.chmod(workdir, 0o700)
    control, learner_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        control.close()
        try:
            learner.template_main(learner_end, job, workdir, read_roots)
        finally:
            os._exit(70)
    learner_end.close()
    try:
        return Judge(job, control, pid).run()
    finally:
        _kill(pid, group=True)
        control.close()
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


class Judge:
    def __init__(self, job: dict, control: socket.socket, learner_pid: int):
        self.job, self.control, self.learner_pid = job, control, learner_pid
        self.limits = job["limits"]
        self.listener = None
        self.isolation: dict = {}
        self.setup_namespace: dict = {}
        self.learner_peak_mb = 0.0
        self.fork_leave = 0

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
                    request = confine.next_notification(self.listener)
                    if request is None:
                        break
                    confine.answer_notification(self.listener, request[0], self.fork_leave > 0)
                    self.fork_leave -= self.fork_leave > 0
            if ready:
                return ready
        return []

    def _until(self, op: str, deadline: float) -> dict | None:
        """The learner's next control message `op` (others are skipped); None past the deadline, EOFError
        when its process is gone."""
        while self._wait([self.control], deadline):
            try:
                data = self.control.recv(1 << 20)
            except OSError:
                data = b""
            if not data:
                raise EOFError
            try:
                message = json.loads(data)
            except ValueError:
                continue
            if type(message) is dict and message.get("op") == op:
                return message
        return None

    # ------------------------------------------------------------------------------------ the notebook
    def run(self) -> dict:
        start = time.monotonic()
        tests = self.job["tests"]
        try:
            message, fd = recv_fd(self.control)
            info = json.loads(message)
        except (OSError, ValueError):
            return self._all(died(self._status()))
        self.isolation = info.get("isolation", {}) if type(info) is dict else {}
        self.listener = fd if self.isolation.get("seccomp") else None
        if fd is not None and self.listener is None:
            os.close(fd)
        self._run_setup()
        deadline = start + self.limits["seconds_per_test"]
        try:
            ready = self._until("ready", deadline)
        except EOFError:
            return self._all(died(self._status()))
        if ready is None:
            return self._all(Outcome("timeout", ANSWER_TIMEOUT, "timeout"))
        answers_seconds = time.monotonic() - start
        failures = [f for f in ready.get("failures", []) if type(f) is dict]
        names = {k: v for k, v in ready.get("names", {}).items() if type(v) is dict and type(v.get("h")) is int}
        outcomes = []
        for grade_id, source in tests:
            outcome = self._test(grade_id, source, names)
            outcome = _answer_cell_cause(outcome, failures)
            outcome.details.update(isolation=self.isolation)
            outcome.details.setdefault("phases", {})["answers"] = round(answers_seconds / max(len(tests), 1), 4)
            outcomes.append(outcome)
            if outcome.mistake == "learner-stalled":
                outcomes += [Outcome("error", outcome.feedback, outcome.mistake)] * (len(tests) - len(outcomes))
                break
        notes = [f"your answer cell `{f['cell']}` raised an error after defining its names: {f['feedback']}"
                 for f in failures if not f.get("setup")]
        return {"outcomes": outcomes, "notes": notes, "output": str(ready.get("output", ""))[-4000:],
                "answers_seconds": round(answers_seconds, 4)}

    def _all(self, outcome: Outcome) -> dict:
        outcome.details.update(isolation=self.isolation)
        return {"outcomes": [Outcome(outcome.status, outcome.feedback, outcome.mistake, details=dict(outcome.details))
                             for _ in self.job["tests"]], "notes": [], "output": ""}

    def _status(self):
        try:
            done, status = os.waitpid(self.learner_pid, os.WNOHANG)
            if not done:
                os.kill(self.learner_pid, signal.SIGKILL)
                done, status = os.waitpid(self.learner_pid, 0)
            return status
        except ChildProcessError:
            return None

    def _run_setup(self) -> None:
        """The setup cells run here too (they are the course's): the tests see their names."""
        namespace = {"__name__": "__main__", "get_ipython": cells.NoIPython}
        for label, source in self.job["cells"]:
            if not label.startswith("answer"):
                cells.run(cells.compile_cell(source, label), namespace, label)
        self.setup_namespace = namespace

    # ----------------------------------------------------------------------------------------- a test
    def _test(self, grade_id: str, source: str, names: dict) -> Outcome:
        start = time.monotonic()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.fork_leave = 1
        try:
            send_fd(self.control, b'{"op": "fork"}', theirs.fileno())
            forked = self._until("forked", start + 10)
        except (OSError, EOFError):
            ours.close()
            return died(self._status())
        finally:
            theirs.close()
            self.fork_leave = 0
        if forked is None or forked.get("pid", -1) <= 0:
            ours.close()
            return Outcome("error", "the process running your answers stopped responding to the grader.",
                           "learner-stalled")
        learner_pid = forked["pid"]
        results_r, results_w = os.pipe()
        judge_pid = os.fork()
        if judge_pid == 0:
            os.close(results_r)
            _judge_child(grade_id, source, names, ours, results_w, self)
        os.close(results_w)
        ours.close()
        forked_at = time.monotonic()
        outcome = self._result(results_r, judge_pid, start + self.limits["seconds_per_test"])
        os.close(results_r)
        status = self._end_test(learner_pid)
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

    def _end_test(self, learner_pid: int):
        """The test's learner process is done (it was told `end`, or its channel closed): reap its status."""
        try:
            message = self._until("ended", time.monotonic() + 2)
            if message is None:
                _kill(learner_pid)
                message = self._until("ended", time.monotonic() + 5)
        except EOFError:
            return None
        if message is None:
            return None
        status, peak = message.get("status"), message.get("peak_mb")
        self.learner_peak_mb = float(peak) if type(peak) in (int, float) else 0.0
        return status if type(status) is int else None


def _kill(pid: int, group: bool = False) -> None:
    """Kill `pid` (and with `group`, every process of its group: the learner's copies) and reap it."""
    for kill in ((os.killpg, os.kill) if group else (os.kill,)):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _answer_cell_cause(outcome: Outcome, failures: list) -> Outcome:
    """A name the test could not find because its answer cell raised first: that error is the cause."""
    answer_failures = [f for f in failures if not f.get("setup")]
    setup_failures = [f for f in failures if f.get("setup")]
    if setup_failures and outcome.status != "passed":
        f = setup_failures[0]
        return Outcome("error", f"a setup cell of the course failed ({f['feedback']}); tell your instructor.",
                       "setup-error")
    if answer_failures and outcome.status != "passed" and outcome.mistake in ("not-defined", "name-error"):
        f = answer_failures[0]
        return Outcome(f["status"], f"your answer cell `{f['cell']}` raised an error: {f['feedback']}",
                       f["mistake"] or "exception")
    return outcome


def _judge_child(grade_id: str, source: str, names: dict, sock: socket.socket, results_w: int, judge: Judge):
    """A fresh judge process for one test: the test cell runs here, against proxies of the learner's names."""
    try:
        judge.control.close()
        if judge.listener is not None:
            os.close(judge.listener)
        import autograder.checks.common as common

        common.set_base_seed(judge.job["seed"])
        link = proxy.Link(Channel(sock))
        common.attach_learner(link)
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
