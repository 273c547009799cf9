"""The judge: grades one notebook, a fork of the root process. It never runs the learner's code.

    the job (cells, limits)  ->  fork the learner's starter  ->  read the test cells (a frame of their own)
    the starter starts the learner's sandbox, as our own child  ->  setup + answer cells run there, once
        ->  `ready`: the names the answers defined, and which cells raised what (data; protocol.py)
    for each test:  the template forks a copy (the one fork its seccomp filter lets through, with our leave)
        ->  this process runs the setup cells again and the test cell, the learner's names bound to proxies
            (`proxy.Remote`), from the state every test starts from (judge_state.py), and computes the verdict

This file is the notebook's run and each test's; judge_learner.py holds the learner's sandbox (starting it,
reading its reports, stopping it). Everything the learner's side sends is checked against protocol.py and
decides no status: pass, fail, error and timeout come from the test's own run, our clock and our own children.
Time limits: one for the answer cells (a loop there ends every test of the notebook at once, with that reason),
one per test (our timer, `within`, interrupts the test's run here). A test that times out, or a sandbox that
stops answering, takes the whole sandbox (the process group of our child); the next test gets a fresh one from
the starter (`Limits.restarts` at most).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import resource
import shutil
import signal
import socket
import tempfile
import time

from autograder.engine import shared
from autograder.engine.sandbox import cells, cgroup, codec, confine, judge_state, protocol, proxy, warm
from autograder.engine.sandbox.cells import Outcome
from autograder.engine.sandbox.channel import Channel
from autograder.engine.sandbox.isolation import Isolation
from autograder.engine.sandbox.verdicts import Graded, answer_cell_cause, answer_cell_note, clip
from autograder.engine.sandbox.judge_learner import FORGED_READY, STALLED, LearnerSandbox, died

SPOILED = ("the grader could not run this test on a fresh state ({why}): its own failure, not yours; tell your "
           "instructor.")
TEST_TIMEOUT = ("time limit exceeded while running the test on your code: is there an infinite loop, or work "
                "far larger than the exercise needs?")


def grade_notebook(job: dict, read_roots: list, read_tests=None) -> Graded:
    """The notebook's Graded: an Outcome per test, the notes, the answers' output, the isolation they had.

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
        judge.learner.start_starter()
        if read_tests is not None:
            job["tests"], job["seed"] = read_tests()
        return judge.run()
    finally:
        if judge is not None:
            judge.learner.stop()
            judge.learner.stop_starter()
        if group is not None:
            group.remove()
        shutil.rmtree(workdir, ignore_errors=True)


class Judge:
    """One notebook's run: its setup cells here, its answers once in the learner's sandbox, then each test."""

    def __init__(self, job: dict, workdir: str, read_roots: list):
        self.job = job
        self.limits = job["limits"]
        self.learner = LearnerSandbox(job, workdir, read_roots)
        self.setup_code: list = []  # the setup cells, compiled: each test run here runs them again
        self.baseline: judge_state.Baseline | None = None
        self.spoiled: str | None = None  # why no further test can run in this process (judge_state.py)

    # ------------------------------------------------------------------------------------ the notebook
    def run(self) -> Graded:
        tests, learner = self.job["tests"], self.learner
        self._run_setup()
        self.baseline = judge_state.Baseline()
        failure = self._start_learner()
        if failure is not None:
            return self._all(failure)
        outcomes = []
        for grade_id, source in tests:
            if learner.pid is None:  # a test timed out or the sandbox stalled: a fresh one runs the answers again
                failure = self._start_learner() if learner.starts <= self.limits["restarts"] else \
                    Outcome("error", STALLED, "learner-stalled")
                if failure is not None:
                    outcomes += [Outcome(failure.status, failure.feedback, failure.mistake,
                                         details=dict(failure.details)) for _ in range(len(tests) - len(outcomes))]
                    break
            outcome = self._test(grade_id, source)
            outcome = answer_cell_cause(outcome, learner.failures)
            outcome.details.setdefault("phases", {})["answers"] = round(learner.answers_seconds / max(len(tests), 1), 4)
            outcomes.append(outcome)
        notes = [answer_cell_note(f) for f in learner.failures if not f["setup"]]
        if learner.forged_ready:
            notes = [FORGED_READY]
        return Graded(tuple(outcomes), tuple(notes), learner.output, self._isolation())

    def _isolation(self) -> Isolation:
        """The layers the learner's sandbox reported (`hello`), once for the notebook, with our memory group."""
        isolation = self.learner.isolation
        if isolation.memory_cgroup and self.job.get("memory_group"):  # the judge's own record
            isolation = dataclasses.replace(isolation, memory_cgroup=os.path.basename(self.job["memory_group"]))
        return isolation

    def _all(self, outcome: Outcome) -> Graded:
        return Graded(tuple(Outcome(outcome.status, outcome.feedback, outcome.mistake, details=dict(outcome.details))
                            for _ in self.job["tests"]), isolation=self._isolation())

    def _start_learner(self) -> Outcome | None:
        """Start the learner's sandbox (its start runs here, after the baseline was recorded), then put the
        judge's state back: each test puts it back again when it ends, so a test starts from it."""
        failure = self.learner.start()
        left = self.baseline.restore()
        if left and self.spoiled is None:
            self.spoiled = f"the judge's state changed while the learner's sandbox started ({', '.join(left)})"
        return failure

    def _run_setup(self) -> None:
        """The setup cells run here too (they are the course's): the tests see their names. They run once now,
        before the baseline is recorded, so the state every test starts from is the one they leave."""
        self.setup_code = [cells.compile_cell(source, label) for label, source in self.job["cells"]
                           if not label.startswith("answer")]
        self._fresh_setup()

    # ----------------------------------------------------------------------------------------- a test
    def _test(self, grade_id: str, source: str) -> Outcome:
        if self.spoiled is not None:
            return Outcome("error", SPOILED.format(why=self.spoiled), "grader-error")
        start = time.monotonic()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            failure = self.learner.fork_copy(theirs)
        finally:
            theirs.close()
        if failure is not None:
            ours.close()
            return failure
        deadline = start + self.limits["seconds_per_test"]
        forked_at = time.monotonic()
        outcome = self._test_here(grade_id, source, ours, deadline)
        if outcome.status == "timeout":
            self.learner.stop()  # the copy may still be running: the whole sandbox goes, the next test gets a new one
            status = None
        else:
            status = self.learner.end_copy()
        if outcome.mistake == "learner-gone":
            outcome = died(status)
        outcome.seconds = round(time.monotonic() - start, 4)
        outcome.details.setdefault("phases", {}).update(fork=round(forked_at - start, 4))
        judges = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                     resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024
        outcome.details["child_maxrss_mb"] = round(max(judges, self.learner.peak_mb), 1)
        return outcome

    def _test_here(self, grade_id: str, source: str, sock: socket.socket, deadline: float) -> Outcome:
        """The test cell run in this process, on a fresh namespace (the setup cells run again) and the state
        every test starts from (judge_state.py), within the test's time: our own timer interrupts it."""
        try:
            data, expired = within(deadline - time.monotonic(),
                                   lambda: test_verdict(grade_id, source, sock, self, self._fresh_setup()))
        finally:
            sock.close()
        left = self.baseline.restore()
        if left:
            self.spoiled = f"{grade_id} left the grader's state changed ({', '.join(left)})"
        return Outcome("timeout", TEST_TIMEOUT, "timeout") if expired else read_verdict(data)

    def _fresh_setup(self) -> dict:
        """The setup cells run (again) into a new namespace, their output dropped: the names a test sees."""
        namespace = {"__name__": "__main__", "get_ipython": cells.NoIPython}
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            for code in self.setup_code:
                cells.run(code, namespace, "setup")
        return namespace


def read_verdict(data: bytes) -> Outcome:
    """A test's `verdict` (test_verdict's JSON) as an Outcome; the grader's own failure if it is not one. It is
    bounded as the notebook's reply that carries it is (`MAX_GRADED_FRAME`)."""
    if not data:
        return Outcome("error", "the grader failed on this test (it ended without a verdict); tell your "
                                "instructor.", "grader-error")
    try:
        message = protocol.check_json("verdict", data, protocol.MAX_GRADED_FRAME)
    except protocol.ProtocolError as error:
        return Outcome("error", protocol.GRADER_BROKE.format(why=error), "grader-error")
    return Outcome.from_wire(message)


class OutOfTime(BaseException):
    """The test's time is up (our timer): BaseException, so no check's `except Exception` swallows it."""


def within(seconds: float, run):
    """(run(), False), or (whatever came of it, True) if `seconds` passed first: SIGALRM interrupts Python code
    and the judge's waits on the learner's replies, and fires again every 50 ms until `run` returns. Whether
    time ran out is our timer's word, never read from what the test produced."""
    armed, fired = [True], [False]

    def on_alarm(signum, frame):
        if armed[0]:
            fired[0] = True
            raise OutOfTime()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        try:
            if seconds <= 0:
                fired[0] = True
                raise OutOfTime()
            signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
            result = run()
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except OutOfTime:
        result = None
    finally:
        signal.signal(signal.SIGALRM, previous)
    return result, fired[0]


def learner_name(link, info: dict):
    """One of the answers' names in the judge: its value where it came by value and decodes here, else a proxy
    of it. A value the judge cannot read (hostile data: a dtype the codec does not know) costs that name only."""
    if type(info.get("value")) is dict:
        try:
            return codec.decode(info["value"], [])
        except codec.CodecError:
            pass
    return proxy.Remote(link, info["h"], info)


def test_verdict(grade_id: str, source: str, sock: socket.socket, judge: Judge, setup: dict) -> bytes:
    """The test cell run against proxies of the learner's names (and the setup cells' names), the learner's
    copy reached through `sock`: its verdict (protocol.py `verdict`), as `read_verdict` reads it."""
    try:
        shared.set_base_seed(judge.job["seed"])
        link = proxy.Link(Channel(sock))
        shared.attach_learner(link)
        namespace = {name: learner_name(link, info) for name, info in judge.learner.names.items()}
        namespace.update(setup)
        shared.COMPILING[0] = 0.0
        start = time.perf_counter()
        outcome = cells.run(cells.compile_cell(source, grade_id, ipython=False), namespace, grade_id, is_test=True)
        outcome = outcome or Outcome("passed")
        outcome.details["check_seconds"] = round(time.perf_counter() - start, 4)
        # the test cell's time, of which the round trips to the learner's process (their count apart)
        outcome.details["phases"] = {"check": outcome.details["check_seconds"],
                                     "requests": round(link.request_seconds, 4),
                                     "compile": round(shared.COMPILING[0], 4)}
        outcome.details["round_trips"] = link.requests
        try:
            link.channel.send(*codec.encode(protocol.request({"op": "end"})))
        except OSError:
            pass
    except OutOfTime:
        raise
    except proxy.BrokenProtocol as error:  # (the test cell's own run describes it the same way)
        outcome = Outcome("error", str(error), "protocol")
    except proxy.LearnerGone:
        outcome = Outcome("error", "the process running your code ended", "learner-gone")
    except BaseException as error:  # noqa: BLE001 - the grader's own failure, reported as such
        outcome = Outcome("error", f"the grader failed on this test ({type(error).__name__}: {error}); "
                                   "tell your instructor.", "grader-error")
    finally:
        shared.attach_learner(None)
    verdict = Outcome(outcome.status, clip(str(outcome.feedback)), str(outcome.mistake)[:200],
                      details=outcome.details)
    return json.dumps(verdict.to_wire(), default=str).encode()
