"""The wire contract between the grading processes: every message kind, declared once.

    grader -> root -(fork)-> judge -(fork)-> starter -(clone)-> learner's sandbox -(fork)-> a test's copy

Trust falls along the arrows: each process reads what the processes after it send as hostile data, and
checks what its own grader-side fork sends (the starter) and its own test's verdict too, their failure being the
grader's.
A message carries facts, never a status, a pid or a size its reader would act on unchecked: pass, fail, error
and timeout are decided by the judge from what it computed and observed itself; a pid is the kernel's word (the
reader's own child) or nothing; every size is capped before anything is allocated for it. Each kind has a JSON
schema here (a bare signal, its one spelling); a message that does not match is a broken protocol, which its
reader reports as such, never with an exception that escapes.

    channel               direction                 kinds
    --------------------  ------------------------  ---------------------------------------------------------
    root's control        grader -> root            judge (a signal, with the notebook's socket attached)
    notebook (frames)     grader -> judge           job, then tests (a frame of its own, read once the
                                                    learner's starter exists)
                          judge -> grader           graded (an outcome per test, the isolation once), or
                                                    failed (why not)
    starter (seqpacket)   judge -> starter          start (a signal)
                          starter -> judge          started (with the sandbox's two sockets attached)
    (within the judge)    a test's run -> judge     verdict (its JSON, checked before it joins the reply)
    fds (seqpacket)       learner -> judge          hello (with the seccomp listener; sent before any
                                                    learner code runs)
                          judge -> learner          fork (with the test's socket)
    control (frames)      learner -> judge          ready, forked, ended
    test (frames)         judge -> learner          call, vjp, probe, getattr, record, end (values: codec.py)
                          learner -> judge          reply: {"ok": value} or {"error": error}
                          judge -> learner          plan: several of those requests in one frame (PLAN_FRAME)
                          learner -> judge          plan_reply: a reply per request run (or a tampering reply)

Frames (channel.py) have no datagram limit; the learner's control channel caps each at `MAX_CONTROL_FRAME`,
the grader's read of the judge's reply at `MAX_GRADED_FRAME` (a test's verdict, part of it, at the same).
"""

from __future__ import annotations

import dataclasses
import json
import math

import jsonschema

from autograder.engine.sandbox.cells import STATUSES
from autograder.engine.sandbox.limits import ISOLATION_LEVELS, Limits

MAX_CONTROL_FRAME = 8 * 1024 * 1024   # a ready report (names with plain values, output) fits well inside
MAX_NAMES = 2000
MAX_VALUE_CHARS = 100_000              # a name's plain value travels by value up to this size ...
MAX_VALUES_CHARS = 2_000_000           # ... and all of them together up to this; the rest as handles
MAX_TEXT = 8000                        # a message, a cell label, a type name
MAX_OUTPUT = 64_000
MAX_FEEDBACK = 20_000                  # a test's feedback or a note, as the judge sends it (cut there)
MAX_TESTS = 1000                       # test cells of one notebook
MAX_GRADED_FRAME = 64 * 1024 * 1024    # a notebook's outcomes, read by the grader
MAX_PID = 1 << 22                      # the kernel's own bound (pid_max)
MAX_PLAN_STEPS = 64                    # requests in one plan (a gradcheck of two inputs takes 6 calls, then 4 vjps)


class ProtocolError(ValueError):
    """A message that is not one the contract declares."""


# What a broken protocol is called, by whoever broke it. The learner's process: its tests end with this
# (mistake "protocol"). One of the grader's own processes (root, judge, a judge's fork, the starter): the
# grader's failure, for the instructor (mistake "grader-error").
LEARNER_BROKE = ("the process running your answers sent the grader something it never sends ({why}): does an "
                 "answer cell write to file descriptors it did not open?")
GRADER_BROKE = "the grader broke its own protocol ({why}); tell your instructor."

_TEXT = {"type": "string", "maxLength": MAX_TEXT}
_NAME = {"type": "string", "maxLength": 200}
_PATH = {"type": "string", "maxLength": 4096}
_SECONDS = {"type": "number", "minimum": 0}
_COUNT = {"type": "integer", "minimum": 0}


def _object(properties: dict, required=None, **more) -> dict:
    """An object of exactly these fields (all required unless `required` names fewer)."""
    return dict({"type": "object", "properties": properties,
                 "required": list(properties) if required is None else list(required),
                 "additionalProperties": False}, **more)


def _cells(max_items: int) -> dict:
    """[[label, source], ...]: notebook cells (a source's size is the submission's, capped before grading)."""
    return {"type": "array", "maxItems": max_items,
            "items": {"type": "array", "prefixItems": [_NAME, {"type": "string"}], "minItems": 2, "maxItems": 2}}


# A learner's exception as data (learner_requests.error_data): the judge rebuilds and describes it itself.
ERROR = _object({"type": _NAME, "base": _NAME, "message": _TEXT, "where": _TEXT, "code": _NAME,
                 "cause": {"$ref": "#/$defs/error"}}, required=["type", "message"])

# limits.Limits as the job carries it: every field of the dataclass, of its type (a count or a positive number,
# and one of the isolation levels).
_LIMIT_TYPES = {"int": _COUNT, "float": {"type": "number", "exclusiveMinimum": 0},
                "str": {"enum": list(ISOLATION_LEVELS)}, "bool": {"type": "boolean"}}
LIMITS = _object({f.name: _LIMIT_TYPES[f.type] for f in dataclasses.fields(Limits)})

# The layers a learner's sandbox reported (hello), as facts: a few plain values.
_ISOLATION = {"type": "object", "maxProperties": 30, "propertyNames": {"maxLength": 200},
              "additionalProperties": {"type": ["boolean", "integer", "string"], "maxLength": MAX_TEXT}}

# What the judge records of a test besides its verdict: every field it ever writes, and no other.
DETAILS = _object({
    "exception": _NAME, "exit": _NAME, "check_seconds": _SECONDS, "child_maxrss_mb": _SECONDS, "round_trips": _COUNT,
    "phases": {"type": "object", "maxProperties": 20, "propertyNames": {"maxLength": 200},
               "additionalProperties": _SECONDS}}, required=[])

# cells.Outcome as the judge sends it (dataclasses.asdict).
OUTCOME = _object({"status": {"enum": list(STATUSES)}, "feedback": {"type": "string", "maxLength": MAX_FEEDBACK},
                   "mistake": _NAME, "output": {"type": "string", "maxLength": MAX_OUTPUT}, "seconds": _SECONDS,
                   "details": DETAILS})

# The bare signals: no JSON, one spelling each.
SIGNALS = {
    "judge": b"judge",    # grader -> root: fork a judge to serve the socket attached
    "start": b"start",    # judge -> its starter: start a learner's sandbox
}

GRADER_SENDS = {
    # The notebook, without its test cells and the seed: the judge forks the learner's starter first.
    "job": _object({"cells": _cells(2000), "limits": LIMITS, "protected": {"type": "array", "maxItems": 1000,
                                                                          "items": _PATH},
                    "warm": {"type": "array", "maxItems": 20, "items": _NAME}}),
    "tests": _object({"tests": _cells(MAX_TESTS), "seed": {"type": "integer", "minimum": -(1 << 63),
                                                          "maximum": (1 << 64) - 1}}),
}

JUDGE_REPLIES = {
    "graded": _object({"outcomes": {"type": "array", "maxItems": MAX_TESTS, "items": OUTCOME},
                       "notes": {"type": "array", "maxItems": 400,
                                 "items": {"type": "string", "maxLength": MAX_FEEDBACK}},
                       "output": {"type": "string", "maxLength": MAX_OUTPUT},
                       "isolation": _ISOLATION}, required=["outcomes", "notes", "output"]),
    "failed": _object({"error": _TEXT}),
}

# Within the judge: its starter's answer, and a test's verdict.
JUDGE_FORKS_SEND = {
    "started": _object({"pid": {"type": "integer", "minimum": -1, "maximum": MAX_PID}}),
    "verdict": OUTCOME,  # the test's Outcome; its seconds and output are the judge's to fill in
}

LEARNER_SENDS = {
    "hello": _object({"op": {"const": "hello"}, "isolation": dict(_ISOLATION, maxProperties=20)}),
    "ready": _object({
        "op": {"const": "ready"},
        "names": {
            "type": "object", "maxProperties": MAX_NAMES,
            "propertyNames": {"maxLength": 200},
            "additionalProperties": _object({"h": {"type": "integer", "minimum": 1}, "type": _NAME,
                                             "callable": {"type": "boolean"}, "name": _NAME,
                                             "value": {"type": "object"}}, required=["h"]),
        },
        "failures": {"type": "array", "maxItems": 200,
                     "items": _object({"cell": _NAME, "error": {"$ref": "#/$defs/error"}})},
        "output": {"type": "string", "maxLength": MAX_OUTPUT},
        "seconds": _SECONDS,
    }, required=["op", "names", "failures", "output"]),
    "forked": _object({"op": {"const": "forked"}, "ok": {"type": "boolean"}}),
    "ended": _object({"op": {"const": "ended"},
                      "status": {"type": ["integer", "null"], "minimum": 0, "maximum": 65535},
                      "peak_mb": {"type": "number", "minimum": 0, "maximum": 1e7}}, required=["op"]),
    "reply": {
        "type": "object",
        "oneOf": [{"required": ["ok"]}, {"required": ["error"]}],
        "properties": {"ok": {}, "error": {"$ref": "#/$defs/error"}},
        "additionalProperties": False,
    },
    # A plan's answer, as its frame's header: the plan's number, then each request's reply header (codec.py's
    # {"v", "sizes"}, its buffers the next ones of the frame), in order, as many as ran: the learner's side stops
    # after the first that raised or changed its inputs. Read before any value is decoded (plan_results).
    "plan_reply": _object({
        "plan": {"type": "integer", "minimum": 1, "maximum": (1 << 63) - 1},
        "results": {"type": "array", "maxItems": MAX_PLAN_STEPS,
                    "items": _object({"v": {}, "sizes": {"type": "array", "maxItems": 10_000, "items": _COUNT}})},
        "sizes": {"type": "array", "maxItems": MAX_PLAN_STEPS * 10_000, "items": _COUNT}}),
}

JUDGE_SENDS = {
    "fork": (),                                   # on the fds channel, with the test's socket attached
    "call": ("h", "attr", "args", "kwargs", "grad", "record"),
    "vjp": ("graph", "grads", "dirty", "dirty_outputs", "create_graph"),
    "probe": ("name", "args", "kwargs"),
    "getattr": ("h", "attr", "name"),
    "record": ("after", "release", "backward"),               # the last call's record (learner_requests.op_record)
    "plan": ("plan", "steps"),    # steps: requests above (call, vjp, getattr), each encoded alone (PLAN_FRAME)
    "end": (),
}

SCHEMAS = {**GRADER_SENDS, **JUDGE_REPLIES, **JUDGE_FORKS_SEND, **LEARNER_SENDS}

# JSON's integers are Python's int (never a bool, never 2.0), its numbers finite: a pid of 7.0 or a size of
# NaN is no message of ours.
_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many({
    "integer": lambda _, value: type(value) is int,
    "number": lambda _, value: type(value) in (int, float) and math.isfinite(value),
})
_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPES)
_VALIDATORS = {kind: _Validator(dict(schema, **{"$defs": {"error": ERROR}})) for kind, schema in SCHEMAS.items()}


# Messages a plain test decides as the validator would, where the schema leaves nothing else to check (tested
# against the validator in tests/core/test_protocol.py): a reply of `ok` alone is one whatever its value (any JSON
# value is), and every round trip's reply is one. Anything the shortcut does not take goes to the validator.
_VALID_AT_A_GLANCE = {
    "reply": lambda message: type(message) is dict and len(message) == 1 and "ok" in message,
}


def check(kind: str, message) -> dict:
    """`message` if it is a well-formed `kind`; else ProtocolError (an unknown kind included)."""
    validator = _VALIDATORS.get(kind)
    if validator is None:
        raise ProtocolError(f"no message kind {kind!r} is declared")
    glance = _VALID_AT_A_GLANCE.get(kind)
    if glance is not None and glance(message):
        return message
    try:
        valid = validator.is_valid(message)
    except (TypeError, ValueError, RecursionError) as error:  # a value JSON could not have carried
        raise ProtocolError(f"malformed {kind} ({type(error).__name__})") from None
    if not valid:
        error = next(validator.iter_errors(message))
        where = "/".join(str(p) for p in error.absolute_path) or "message"
        raise ProtocolError(f"malformed {kind} ({where}: {error.message[:200]})")
    return message


def check_json(kind: str, data: bytes, limit: int) -> dict:
    """The `kind` written as JSON in `data` (at most `limit` bytes); else ProtocolError."""
    if len(data) > limit:
        raise ProtocolError(f"{kind} larger than {limit} bytes")
    try:
        message = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProtocolError(f"{kind} is not JSON") from None
    return check(kind, message)


def check_signal(kind: str, data: bytes) -> bytes:
    """`data` if it is the signal `kind`, spelt as declared; else ProtocolError."""
    if kind not in SIGNALS:
        raise ProtocolError(f"no signal {kind!r} is declared")
    if data != SIGNALS[kind]:
        raise ProtocolError(f"expected the signal {kind}, got {bytes(data[:40])!r}")
    return data


def request(message: dict) -> dict:
    """`message` if it is a request of the judge's declared in JUDGE_SENDS (its op and no other field): the
    judge builds its requests through this, so the table above is the whole of what it ever asks."""
    fields = JUDGE_SENDS.get(message.get("op"))
    if fields is None or not set(message) - {"op"} <= set(fields):
        raise ProtocolError(f"the judge built an undeclared request: {sorted(message)}")
    return message


def plan_results(header: dict, steps: int, plan: int) -> list:
    """The replies in a plan's answer (`plan_reply`, for the plan numbered `plan` of `steps` requests), each as
    (its header, how many of the frame's buffers are its own); else ProtocolError. Checked before any tensor is
    decoded: the schema caps every count, a reply for another plan or to more requests than were sent is
    refused, and the buffers must add up to the frame's."""
    check("plan_reply", header)
    if header["plan"] != plan:
        raise ProtocolError("a reply for another plan")
    if len(header["results"]) > steps:
        raise ProtocolError(f"{len(header['results'])} replies to a plan of {steps} requests")
    counts = [len(result["sizes"]) for result in header["results"]]
    if sum(counts) != len(header["sizes"]) or [n for r in header["results"] for n in r["sizes"]] != header["sizes"]:
        raise ProtocolError("a plan's replies do not account for its buffers")
    return list(zip(header["results"], counts))


def plan_steps(header: dict, buffers: list) -> list | None:
    """A plan's requests, each (its header, its own buffers); None for a frame that is not a plan of ours."""
    steps, at = header.get("steps"), 0
    if type(header.get("plan")) is not int or type(steps) is not list or len(steps) > MAX_PLAN_STEPS:
        return None
    found = []
    for step in steps:
        sizes = step.get("sizes") if type(step) is dict else None
        if type(sizes) is not list:
            return None
        found.append((step, buffers[at:at + len(sizes)]))
        at += len(sizes)
    return found if at == len(buffers) else None


# A plan's frame (judge -> learner): {"plan": its number, "steps": [each request's codec header], "sizes": every
# step's buffer sizes in turn}; each step is decoded on its own, with its own buffers, as a request alone is.
PLAN_FRAME = ("plan", "steps", "sizes")

# A request's `attr`: one of the methods every torch.autograd.Function class has (its own or inherited), named on
# the class's handle without a round trip to read it (proxy.Remote); the learner's process reads it when called.
FUNCTION_METHODS = frozenset({"apply", "forward", "backward", "setup_context", "jvp", "vjp", "vmap"})
FORK = json.dumps(request({"op": "fork"})).encode()  # the fork request's one spelling
