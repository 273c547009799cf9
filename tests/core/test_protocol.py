"""The wire contract (autograder/engine/sandbox/protocol.py) and the judge's own caps, as tables.

Every kind has a validator, those between the grader, the root and the judge's forks as well as the learner's;
a message carries facts and never a status or a pid; sizes are capped before anything is allocated for them.
Each kind is refused where it is read, by the code its reader runs, in each way it can be broken.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import asdict

import pytest
import torch

from autograder.engine.sandbox import channel, codec, handle, judge, judge_learner, protocol, proxy, root
from autograder.engine.sandbox.limits import Limits
from autograder.engine.sandbox.verdicts import Graded

ERROR = {"type": "ValueError", "base": "ValueError", "message": "boom", "where": " (in answer_Square, line 2)"}

VALID = [
    ("hello", {"op": "hello", "isolation": {"level": "full", "namespaces": True, "landlock": 7, "seccomp": True}}),
    ("ready", {"op": "ready", "names": {"Square": {"h": 1, "type": "FunctionMeta", "callable": True,
                                                  "name": "Square"}},
               "failures": [{"cell": "answer_Square", "error": ERROR}], "output": "hi\n", "seconds": 0.01}),
    ("ready", {"op": "ready", "names": {}, "failures": [], "output": ""}),
    ("forked", {"op": "forked", "ok": True}),
    ("ended", {"op": "ended", "status": 0, "peak_mb": 271.5}),
    ("ended", {"op": "ended", "status": None}),
    ("reply", {"ok": [1, 2]}),
    ("reply", {"error": dict(ERROR, cause=dict(ERROR, type="KeyError"))}),
    ("plan_reply", {"plan": 1, "results": [{"v": {"D": {"ok": 1}}, "sizes": []},
                                           {"v": {"D": {"ok": {"t": 0}}}, "sizes": [8]}], "sizes": [8]}),
    ("plan_reply", {"plan": 7, "results": [], "sizes": []}),
]

# What a hostile answer cell could write on a channel it found, and why each is refused.
FORGED = [
    ("ready", {"op": "ready", "names": {}, "failures": [{"cell": "answer_Square", "status": "passed",
                                                         "feedback": "", "mistake": ""}], "output": ""},
     "a failure that carries a status"),
    ("ready", {"op": "ready", "names": {}, "failures": [], "output": "", "status": "passed"}, "a status"),
    ("forked", {"op": "forked", "ok": True, "pid": 1}, "a pid"),
    ("forked", {"op": "forked", "pid": 4242}, "a pid and no fact"),
    ("ended", {"op": "ended", "status": 2 ** 40}, "an exit status no process has"),
    ("ended", {"op": "ended", "peak_mb": -1}, "a negative size"),
    ("ready", {"op": "ready", "names": {"x": {"h": 0}}, "failures": [], "output": ""}, "a handle that names nothing"),
    ("ready", {"op": "ready", "names": {"x": {"h": 1, "kill": 9}}, "failures": [], "output": ""}, "an extra field"),
    ("ready", {"op": "ready", "names": {f"n{i}": {"h": i + 1} for i in range(protocol.MAX_NAMES + 1)},
               "failures": [], "output": ""}, "too many names"),
    ("ready", {"op": "ready", "names": {}, "failures": [], "output": "x" * (protocol.MAX_OUTPUT + 1)},
     "too much output"),
    ("ready", {"op": "ready", "names": {}, "failures": [{"cell": "a", "error": dict(ERROR, message="m" * 10 ** 5)}],
               "output": ""}, "an error message beyond the cap"),
    ("hello", {"op": "hello", "isolation": {"strong": {"nested": True}}}, "a claim that is not a plain fact"),
    ("reply", {"ok": 1, "error": ERROR}, "both a value and an error"),
    ("reply", {"status": "passed"}, "a status instead of a value"),
    ("reply", {"error": {"type": "X"}}, "an error without its message"),
    ("plan_reply", {"plan": 1, "results": [{"v": 1, "sizes": [], "status": "passed"}], "sizes": []},
     "a reply that carries a status"),
    ("plan_reply", {"plan": 1, "results": [{"v": 1, "sizes": []}] * (protocol.MAX_PLAN_STEPS + 1), "sizes": []},
     "more replies than any plan has"),
    ("plan_reply", {"plan": 1.0, "results": [], "sizes": []}, "a plan number written as a float"),
    ("plan_reply", {"plan": 1, "results": [{"v": 1, "sizes": [-8]}], "sizes": [-8]}, "a negative size"),
]


@pytest.mark.parametrize("kind,message", VALID, ids=[f"{k}-{i}" for i, (k, _) in enumerate(VALID)])
def test_every_message_the_learner_sends_as_declared_is_taken(kind, message):
    assert protocol.check(kind, message) is message


@pytest.mark.parametrize("kind,message,why", FORGED, ids=[w for _, _, w in FORGED])
def test_forged_messages_are_refused(kind, message, why):
    with pytest.raises(protocol.ProtocolError):
        protocol.check(kind, message)


@pytest.mark.parametrize("kind,message", [(k, m) for k, m, _ in FORGED] + VALID + [
    ("reply", {"ok": {"nested": [1, None, "text", {"error": "inside a value is only data"}]}}),
    ("reply", {"ok": None}), ("reply", {}), ("reply", []), ("reply", "ok"), ("reply", {"ok": 1, "extra": 2}),
    ("reply", {"OK": 1}), ("reply", {1: 1}), ("reply", {"error": ERROR, "ok": None})])
def test_a_message_taken_at_a_glance_is_one_the_validator_takes(kind, message):
    """The shortcuts in protocol._VALID_AT_A_GLANCE only ever take what the schema's validator takes."""
    glance = protocol._VALID_AT_A_GLANCE.get(kind)
    if glance is not None and glance(message):
        assert protocol._VALIDATORS[kind].is_valid(message)


def test_every_kind_the_learner_sends_has_a_validator():
    assert set(protocol.LEARNER_SENDS) == {"hello", "ready", "forked", "ended", "reply", "plan_reply"}
    for kind, schema in protocol.LEARNER_SENDS.items():
        assert schema.get("additionalProperties") is False, f"{kind} would carry fields nobody declared"


@pytest.mark.parametrize("shape,stride,dtype", [
    ((40000, 40000), (0, 0), "float32"),      # 8 bytes sent, 6.4 GB described
    ((1 << 20, 1 << 10), (1, 0), "float64"),  # a broadcast row: 8 MB sent, 8 GB described
    ((300, 1024, 1024), None, "float32"),     # plain, but larger than any frame the judge takes
])
def test_a_tensor_larger_than_the_cap_is_refused_before_it_is_allocated(shape, stride, dtype):
    size = 1
    for n in shape:
        size *= n
    span = 1 + sum((n - 1) * s for n, s in zip(shape, stride)) if stride else 0
    itemsize = getattr(torch, dtype).itemsize
    node = {"t": 0, "dtype": dtype, "shape": list(shape), "rg": False, "leaf": True}
    if stride:
        node["stride"] = list(stride)
    body = bytes(span * itemsize) if stride else b""
    with pytest.raises(codec.TooLarge, match="larger than the grader takes"):
        codec.decode({"v": node, "sizes": [len(body)]}, [body])
    assert size * itemsize > codec.MAX_TENSOR_BYTES


def test_a_tensor_under_the_cap_still_decodes_with_its_layout():
    expanded = torch.ones(3).expand(1000, 3)
    header, buffers = codec.encode(expanded)
    back = codec.decode(header, buffers)
    assert back.stride() == (0, 1) and torch.equal(back, expanded)


def test_the_judge_builds_only_declared_requests():
    assert protocol.request({"op": "probe", "name": "x", "args": [], "kwargs": {}})["op"] == "probe"
    for undeclared in ({"op": "probe", "name": "x", "status": "passed"}, {"op": "exec", "source": "1"}, {}):
        with pytest.raises(protocol.ProtocolError, match="undeclared request"):
            protocol.request(undeclared)


# ----------------------------------------------------------------------------- every kind, where it is read
#
# For each kind: a valid message, and a reader that is the code the receiving process runs on it. Each reader
# answers "taken" or "refused" (the broken protocol its process reports): never an exception of its own.

OUTCOME = {"status": "failed", "feedback": "the gradient is off by 2", "mistake": "wrong-gradient", "output": "",
           "seconds": 0.5, "details": {"check_seconds": 0.1, "phases": {"check": 0.1, "fork": 0.01}}}
MESSAGES = {
    "job": {"cells": [["setup:setup_1", "import torch"], ["answer_Square", "Square = 1"]],
            "limits": asdict(Limits()), "protected": ["/course/solutions"], "warm": ["opcheck"]},
    "tests": {"tests": [["test_Square_values", "check.values(Square)"]], "seed": 12345},
    "graded": {"outcomes": [OUTCOME], "notes": ["your answer cell `answer_Square` raised"], "output": "hi\n",
               "isolation": {"namespaces": True, "strong": True, "level": "full"}},
    "failed": {"error": "KeyError: 'limits'"},
    "started": {"pid": 4242},
    "verdict": {"status": "passed", "feedback": "", "mistake": "", "output": "", "seconds": 0.0,
                "details": {"check_seconds": 0.1}},
    "hello": dict(VALID[0][1]),
    "ready": dict(VALID[1][1]),
    "forked": {"op": "forked", "ok": True},
    "ended": {"op": "ended", "status": 0, "peak_mb": 271.5},
    "reply": {"error": dict(ERROR)},
    "plan_reply": {"plan": 1, "results": [{"v": {"D": {"ok": {"t": 0, "dtype": "float64", "shape": [1]}}},
                                           "sizes": [8]}], "sizes": [8]},
}
OVERSIZE = {  # each kind's caps, one past
    "job": lambda m: dict(m, cells=[["a" * 201, "pass"]]),
    "tests": lambda m: dict(m, tests=[["t", "pass"]] * (protocol.MAX_TESTS + 1)),
    "graded": lambda m: dict(m, outcomes=[dict(OUTCOME, feedback="x" * (protocol.MAX_FEEDBACK + 1))]),
    "failed": lambda m: {"error": "x" * (protocol.MAX_TEXT + 1)},
    "started": lambda m: {"pid": protocol.MAX_PID + 1},
    "verdict": lambda m: dict(m, feedback="x" * (protocol.MAX_FEEDBACK + 1)),
    "hello": lambda m: dict(m, isolation={f"layer{i}": True for i in range(21)}),
    "ready": lambda m: dict(m, output="x" * (protocol.MAX_OUTPUT + 1)),
    "forked": None,   # no size of its own: a frame that claims more than the cap (CONTROL_FRAME_TOO_LARGE)
    "ended": lambda m: dict(m, peak_mb=1e8),
    "reply": lambda m: {"error": dict(ERROR, message="m" * (protocol.MAX_TEXT + 1))},
    "plan_reply": lambda m: dict(m, results=m["results"] * (protocol.MAX_PLAN_STEPS + 1)),
}
IN_ITS_PLACE = {"job": "tests", "tests": "job", "graded": "verdict", "failed": "started", "started": "verdict",
                "verdict": "graded", "hello": "ready", "ready": "hello", "forked": "hello", "ended": "hello",
                "reply": "verdict", "plan_reply": "reply"}


def _wrong_type(value):
    return {str: 1, bool: "yes", int: "1", float: "0.5", list: {}, dict: [], type(None): "none"}[type(value)]


def breakings(kind: str) -> list:
    """(how, message) for every way of breaking a valid `kind`."""
    valid, schema = MESSAGES[kind], protocol.SCHEMAS[kind]
    cases = [(f"missing {f}", {k: v for k, v in valid.items() if k != f}) for f in schema.get("required", [])]
    cases += [(f"wrong type of {f}", dict(valid, **{f: _wrong_type(v)})) for f, v in valid.items()
              if schema["properties"][f] != {}]
    cases += [(f"an extra {f}", dict(valid, **{f: v})) for f, v in (("status", "passed"), ("pid", 1), ("forged", True))
              if f not in schema["properties"]]
    if OVERSIZE[kind] is not None:
        cases.append(("oversize", OVERSIZE[kind](valid)))
    cases.append(("unknown kind", MESSAGES[IN_ITS_PLACE[kind]]))
    cases.append(("not an object", [valid]))
    return cases


def _read_job(message, tests=None, monkeypatch=None):
    """The root's judge (root.judge_main) given `message` as its job (and `tests` as its second frame)."""
    ours, theirs = socket.socketpair()
    taken = {}

    def grade_notebook(job, read_roots, read_tests):
        taken["job"] = job
        taken["tests"] = read_tests()
        return Graded(())

    monkeypatch.setattr(judge, "grade_notebook", grade_notebook)
    monkeypatch.setattr(root, "learner_read_roots", lambda protected: [])
    with ours:
        for frame in (message, MESSAGES["tests"] if tests is None else tests):
            ours.sendall(channel.pack(frame, []) if type(frame) is dict else channel.pack({"v": frame}, []))
        root.judge_main(channel.Channel(theirs))
        reply = channel.Channel(ours).recv(time.monotonic() + 10)[0]
    if "error" in reply:
        assert reply["error"].startswith("ProtocolError: "), reply
        return "refused"
    return "taken"


def _read_control(kind, message):
    sandbox = judge_learner.LearnerSandbox({"limits": asdict(Limits()), "cells": []}, "/nonexistent", [])
    ours, theirs = socket.socketpair()
    sandbox.control = channel.Channel(theirs, protocol.MAX_CONTROL_FRAME)
    with ours:
        if message is CONTROL_FRAME_TOO_LARGE:
            ours.sendall(channel.PREFIX.pack(protocol.MAX_CONTROL_FRAME + 1, 0))
        else:
            ours.sendall(channel.pack(message if type(message) is dict else {"v": message}, []))
        try:
            sandbox.until(kind, time.monotonic() + 10)
        except judge_learner.LearnerLost as lost:
            assert lost.outcome.mistake == "protocol" and "never sends" in lost.outcome.feedback
            return "refused"
        finally:
            theirs.close()
    return "taken"


def _read_started(message):
    pairs = [socket.socketpair() for _ in range(2)]
    fds = [a.detach() for a, _ in pairs]
    try:
        pid, sockets = judge_learner.read_started(json.dumps(message).encode(), fds)
    except OSError as error:
        assert "did not start a sandbox" in str(error)
        for fd in fds:  # every descriptor it brought is closed
            with pytest.raises(OSError):
                os.fstat(fd)
        return "refused"
    finally:
        for _, b in pairs:
            b.close()
    for fd in sockets:
        os.close(fd)
    return "taken"


def _read_hello(message):
    try:
        judge_learner.read_hello(json.dumps(message).encode(), None)
    except protocol.ProtocolError:
        return "refused"
    return "taken"


def _read_verdict(message):
    outcome = judge.read_verdict(json.dumps(message).encode())
    if outcome.mistake == "grader-error":
        assert "broke its own protocol" in outcome.feedback
        return "refused"
    return "taken"


def _read_reply(message):
    link = proxy.Link(None)
    try:
        link._decode(*codec.encode(message))
    except proxy.BrokenProtocol as error:
        assert "never sends" in str(error)
        return "refused"
    except BaseException as error:  # noqa: BLE001 - an error reply: the learner's exception, rebuilt
        assert "error" in message and not isinstance(error, proxy.LearnerGone)
    return "taken"


class _Answering:
    """A test's channel whose other end answers every frame with `message` (its buffers, of the sizes it says)."""

    def __init__(self, message):
        self.message, self.sent = message, []

    def send(self, header, buffers):
        self.sent.append(header)

    def recv(self, deadline=None):
        sizes = self.message.get("sizes", []) if type(self.message) is dict else []
        ok = type(sizes) is list and all(type(n) is int and 0 <= n < 1 << 20 for n in sizes)
        return self.message, [bytes(n) for n in sizes] if ok else []


def _read_plan_reply(message, plan_steps: int = 2):
    """The judge's read of a plan's answer (proxy.Link.send_plan), to a plan of two requests."""
    link = proxy.Link(_Answering(message))
    request = codec.encode({"op": "getattr", "h": 1, "attr": None, "name": "x"})
    try:
        answered = link.send_plan([request] * plan_steps)
    except proxy.BrokenProtocol as error:
        assert "never sends" in str(error)
        return "refused"
    except proxy.LearnerGone:  # not a frame the channel takes (a header that is not an object)
        return "refused"
    assert link.requests == 1 and len(answered) <= plan_steps
    return "taken"


def _read_judge_reply(message):
    """Sandbox.run on the judge's reply `message` (no judge: the exchange returns it)."""
    tests = len(MESSAGES["graded"]["outcomes"])
    box = handle.Sandbox()
    box.exchange = lambda job: message
    graded = box.run([], [("test", "pass")] * tests)
    if all("the judge broke the protocol" in o.feedback for o in graded.outcomes):
        return "refused"
    return "taken"


CONTROL_FRAME_TOO_LARGE = object()
READER_ONLY = {"a frame larger than the cap", "an outcome short", "no sandbox started"}  # the schema alone takes these
READERS = {
    "job": lambda m, mp: _read_job(m, monkeypatch=mp),
    "tests": lambda m, mp: _read_job(MESSAGES["job"], tests=m, monkeypatch=mp),
    "graded": lambda m, mp: _read_judge_reply(m),
    "failed": lambda m, mp: _read_judge_reply(m),
    "started": lambda m, mp: _read_started(m),
    "verdict": lambda m, mp: _read_verdict(m),
    "hello": lambda m, mp: _read_hello(m),
    "ready": lambda m, mp: _read_control("ready", m),
    "forked": lambda m, mp: _read_control("forked", m),
    "ended": lambda m, mp: _read_control("ended", m),
    "reply": lambda m, mp: _read_reply(m),
    "plan_reply": lambda m, mp: _read_plan_reply(m),
}
BROKEN = [(kind, how, message) for kind in READERS for how, message in breakings(kind)]
BROKEN.append(("forked", "a frame larger than the cap", CONTROL_FRAME_TOO_LARGE))
BROKEN.append(("reply", "neither ok nor error", {}))
BROKEN.append(("failed", "as well as outcomes", dict(MESSAGES["graded"], error="x")))
BROKEN.append(("graded", "an outcome short", dict(MESSAGES["graded"], outcomes=[])))
BROKEN.append(("graded", "isolation in each outcome (it is the notebook's, sent once)",
               dict(MESSAGES["graded"], outcomes=[dict(OUTCOME, details=dict(OUTCOME["details"],
                                                                             isolation={"namespaces": True}))])))
BROKEN.append(("started", "no sandbox started", {"pid": -1}))
BROKEN.append(("started", "a pid written as a float", {"pid": 4242.0}))
BROKEN.append(("ended", "a status written as a float", {"op": "ended", "status": 0.0}))
BROKEN.append(("verdict", "a status of its own", dict(MESSAGES["verdict"], status="excellent")))
BROKEN.append(("plan_reply", "a reply for another plan", dict(MESSAGES["plan_reply"], plan=2)))
BROKEN.append(("plan_reply", "more replies than requests", dict(MESSAGES["plan_reply"],
                                                               results=MESSAGES["plan_reply"]["results"] * 3,
                                                               sizes=[8, 8, 8])))
BROKEN.append(("plan_reply", "buffers its replies do not account for", dict(MESSAGES["plan_reply"], sizes=[8, 8])))
BROKEN.append(("plan_reply", "buffers other than its replies say", dict(MESSAGES["plan_reply"], sizes=[16])))
READER_ONLY |= {"a reply for another plan", "more replies than requests", "buffers its replies do not account for",
                "buffers other than its replies say"}


def test_every_kind_is_declared_and_read():
    assert set(READERS) == set(protocol.SCHEMAS) == set(MESSAGES)
    assert set(protocol.SIGNALS) == {"judge", "start"} and set(protocol.JUDGE_SENDS) >= {"fork", "end"}
    for kind, schema in protocol.SCHEMAS.items():
        assert schema.get("additionalProperties") is False, f"{kind} would carry fields nobody declared"


@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_valid_message_is_taken_where_it_is_read(kind, monkeypatch):
    assert protocol.check(kind, MESSAGES[kind]) is MESSAGES[kind]
    assert READERS[kind](MESSAGES[kind], monkeypatch) == "taken"


@pytest.mark.parametrize("kind,how,message", BROKEN, ids=[f"{k}-{h}" for k, h, _ in BROKEN])
def test_a_broken_message_is_refused_where_it_is_read(kind, how, message, monkeypatch):
    if how not in READER_ONLY:
        with pytest.raises(protocol.ProtocolError):
            protocol.check(kind, message)
    assert READERS[kind](message, monkeypatch) == "refused"


def test_an_undeclared_kind_has_no_validator():
    with pytest.raises(protocol.ProtocolError, match="no message kind"):
        protocol.check("exec", {"op": "exec"})
    with pytest.raises(protocol.ProtocolError, match="no signal"):
        protocol.check_signal("exec", b"exec")


def test_a_job_as_the_grader_builds_it_is_declared():
    """Every field of Limits travels, of its type: a field added there is declared at once."""
    limits = asdict(Limits(seconds_per_test=90, isolation="no-namespaces"))
    assert set(protocol.LIMITS["properties"]) == set(limits)
    protocol.check("job", dict(MESSAGES["job"], limits=limits))
    for broken in ({**limits, "isolation": "some"}, {**limits, "seconds_per_test": 0}, {**limits, "restarts": -1}):
        with pytest.raises(protocol.ProtocolError):
            protocol.check("job", dict(MESSAGES["job"], limits=broken))


def test_the_tests_and_the_seed_never_travel_with_the_job():
    with pytest.raises(protocol.ProtocolError):
        protocol.check("job", dict(MESSAGES["job"], tests=[["t", "pass"]]))
    with pytest.raises(protocol.ProtocolError):
        protocol.check("job", dict(MESSAGES["job"], seed=1))


SIGNALS = [("judge", b"judge", True), ("judge", b"judge ", False), ("judge", b"JUDGE", False),
           ("judge", b'{"op": "judge"}', False), ("start", b"start", True), ("start", b"", False),
           ("start", b"started", False), ("judge", b"start", False)]


@pytest.mark.parametrize("kind,data,taken", SIGNALS, ids=[f"{k}-{d!r}" for k, d, _ in SIGNALS])
def test_signals_have_one_spelling(kind, data, taken):
    if taken:
        assert protocol.check_signal(kind, data) == data
    else:
        with pytest.raises(protocol.ProtocolError):
            protocol.check_signal(kind, data)


@pytest.mark.parametrize("data,with_socket", [(b"judge", True), (b"judge", False), (b"jduge", True),
                                              (b"judge\0", True), (b'{"op": "judge"}', True)])
def test_the_root_forks_a_judge_only_for_the_judge_signal(data, with_socket):
    """Anything else is refused where the root reads it: the socket that came with it is told why, closed,
    and no judge is forked for it."""
    ours, theirs = socket.socketpair()
    fd = theirs.detach() if with_socket else None
    with ours:
        served = root.judge_request(data, fd)
        if data == b"judge" and with_socket:
            assert served == fd
            os.close(fd)
            return
        assert served is None
        if with_socket:
            reply = channel.Channel(ours).recv(time.monotonic() + 5)[0]
            assert reply["error"].startswith("the root refused") and protocol.check("failed", reply)


def _in_a_child(run) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            run()
        finally:
            os._exit(70)
    return os.waitpid(pid, 0)[1]


@pytest.mark.parametrize("data", [b"begin", b"start!", b'{"op": "start"}'])
def test_the_starter_starts_nothing_for_another_signal(data):
    """The learner's starter reads only `start`: anything else and it leaves, having started nothing."""
    from autograder.engine.sandbox import learner

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.send(data)
    status = _in_a_child(lambda: learner.starter_main(theirs, {}, "/nonexistent", []))
    theirs.close()
    with ours:
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        assert ours.recv(256) == b""  # no sandbox, no answer


@pytest.mark.parametrize("data", [b'{"op": "spawn"}', b'{"op": "fork", "pid": 1}', b"fork"])
def test_the_template_forks_nothing_for_another_request(data):
    """The template forks a test's copy only for the judge's `fork`: anything else and it leaves, having
    reported no copy."""
    from autograder.engine.sandbox import learner

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    reports_ours, reports_theirs = socket.socketpair()
    test_ours, test_theirs = socket.socketpair()
    channel.send_fd(ours, data, test_theirs.fileno())
    status = _in_a_child(lambda: learner.fork_per_test(theirs, channel.Channel(reports_theirs)))
    for s in (theirs, reports_theirs, test_theirs):
        s.close()
    with ours, reports_ours, test_ours:
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        assert reports_ours.recv(256) == b""  # no "forked"
    assert protocol.FORK == b'{"op": "fork"}'
