"""The wire contract between the judge and the learner's process: every message kind, declared once.

Everything the learner's process sends is hostile data. It carries facts (which names the answers defined,
which answer cell raised what, that a copy was forked or ended) and never a status, a pid or a size the
judge would allocate unchecked: pass, fail, error and timeout are decided by the judge from what it computed
and observed itself. Each kind the learner sends has a JSON schema here, with every size capped; a message
that does not match is a broken protocol, which the judge reports as such for that learner alone.

    channel          direction          kinds
    ---------------  -----------------  -------------------------------------------------------------------
    fds (seqpacket)  learner -> judge   hello (with the seccomp listener; sent before any learner code runs)
                     judge -> learner   fork (with the test's socket)
    control (frames) learner -> judge   ready, forked, ended
    test (frames)    judge -> learner   call, vjp, probe, getattr, end   (values: codec.py)
                     learner -> judge   reply: {"ok": value} or {"error": error}

Frames (channel.py) have no datagram limit; the control channel caps each at `MAX_CONTROL_FRAME`.
"""

from __future__ import annotations

import jsonschema

MAX_CONTROL_FRAME = 8 * 1024 * 1024   # a ready report (names with plain values, output) fits well inside
MAX_NAMES = 2000
MAX_VALUE_CHARS = 100_000              # a name's plain value travels by value up to this size ...
MAX_VALUES_CHARS = 2_000_000           # ... and all of them together up to this; the rest as handles
MAX_TEXT = 8000                        # a message, a cell label, a type name
MAX_OUTPUT = 64_000


class ProtocolError(ValueError):
    """A message from the learner's process that is not one the contract declares."""


_TEXT = {"type": "string", "maxLength": MAX_TEXT}
_NAME = {"type": "string", "maxLength": 200}

# A learner's exception as data (learner._error): the judge rebuilds and describes it itself.
ERROR = {
    "type": "object",
    "properties": {
        "type": _NAME, "base": _NAME, "message": _TEXT, "where": _TEXT, "code": _NAME,
        "cause": {"$ref": "#/$defs/error"},
    },
    "required": ["type", "message"],
    "additionalProperties": False,
}

LEARNER_SENDS = {
    "hello": {
        "type": "object",
        "properties": {
            "op": {"const": "hello"},
            "isolation": {"type": "object", "maxProperties": 20,
                          "additionalProperties": {"type": ["boolean", "integer", "string"]}},
        },
        "required": ["op", "isolation"],
        "additionalProperties": False,
    },
    "ready": {
        "type": "object",
        "properties": {
            "op": {"const": "ready"},
            "names": {
                "type": "object", "maxProperties": MAX_NAMES,
                "propertyNames": {"maxLength": 200},
                "additionalProperties": {
                    "type": "object",
                    "properties": {"h": {"type": "integer", "minimum": 1}, "type": _NAME,
                                   "callable": {"type": "boolean"}, "name": _NAME, "value": {"type": "object"}},
                    "required": ["h"],
                    "additionalProperties": False,
                },
            },
            "failures": {
                "type": "array", "maxItems": 200,
                "items": {"type": "object", "properties": {"cell": _NAME, "error": {"$ref": "#/$defs/error"}},
                          "required": ["cell", "error"], "additionalProperties": False},
            },
            "output": {"type": "string", "maxLength": MAX_OUTPUT},
            "seconds": {"type": "number", "minimum": 0},
        },
        "required": ["op", "names", "failures", "output"],
        "additionalProperties": False,
    },
    "forked": {
        "type": "object",
        "properties": {"op": {"const": "forked"}, "ok": {"type": "boolean"}},
        "required": ["op", "ok"],
        "additionalProperties": False,
    },
    "ended": {
        "type": "object",
        "properties": {"op": {"const": "ended"}, "status": {"type": ["integer", "null"], "minimum": 0, "maximum": 65535},
                       "peak_mb": {"type": "number", "minimum": 0, "maximum": 1e7}},
        "required": ["op"],
        "additionalProperties": False,
    },
    "reply": {
        "type": "object",
        "oneOf": [{"required": ["ok"]}, {"required": ["error"]}],
        "properties": {"ok": {}, "error": {"$ref": "#/$defs/error"}},
        "additionalProperties": False,
    },
}

JUDGE_SENDS = {
    "fork": (),                                   # on the fds channel, with the test's socket attached
    "call": ("h", "attr", "args", "kwargs", "grad", "record"),
    "vjp": ("graph", "grads", "dirty", "dirty_outputs", "create_graph"),
    "probe": ("name", "args", "kwargs"),
    "getattr": ("h", "attr", "name"),
    "end": (),
}

_VALIDATORS = {
    kind: jsonschema.Draft202012Validator(dict(schema, **{"$defs": {"error": ERROR}}))
    for kind, schema in LEARNER_SENDS.items()
}


def request(message: dict) -> dict:
    """`message` if it is a request of the judge's declared in JUDGE_SENDS (its op and no other field): the
    judge builds its requests through this, so the table above is the whole of what it ever asks."""
    fields = JUDGE_SENDS.get(message.get("op"))
    if fields is None or not set(message) - {"op"} <= set(fields):
        raise ProtocolError(f"the judge built an undeclared request: {sorted(message)}")
    return message


def check(kind: str, message) -> dict:
    """`message` if it is a well-formed `kind` the learner may send; else ProtocolError."""
    validator = _VALIDATORS[kind]
    if not validator.is_valid(message):
        error = next(validator.iter_errors(message))
        where = "/".join(str(p) for p in error.absolute_path) or "message"
        raise ProtocolError(f"malformed {kind} ({where}: {error.message[:200]})")
    return message
