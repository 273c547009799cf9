"""The wire contract (autograder/sandbox/protocol.py) and the judge's own caps, as tables.

Every kind the learner's process sends has a validator; a message carries facts and never a status or a
pid; sizes are capped before anything is allocated for them.
"""

from __future__ import annotations

import pytest
import torch

from autograder.sandbox import codec, protocol

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
]


@pytest.mark.parametrize("kind,message", VALID, ids=[f"{k}-{i}" for i, (k, _) in enumerate(VALID)])
def test_every_message_the_learner_sends_as_declared_is_taken(kind, message):
    assert protocol.check(kind, message) is message


@pytest.mark.parametrize("kind,message,why", FORGED, ids=[w for _, _, w in FORGED])
def test_forged_messages_are_refused(kind, message, why):
    with pytest.raises(protocol.ProtocolError):
        protocol.check(kind, message)


def test_every_kind_the_learner_sends_has_a_validator():
    assert set(protocol.LEARNER_SENDS) == {"hello", "ready", "forked", "ended", "reply"}
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
