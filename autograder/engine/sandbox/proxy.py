"""The judge's view of the learner's objects: proxies whose calls are requests to the learner's process.

`Remote` stands for one of the learner's objects (a Function class, a function, an operator). Calling it
sends the tensors by value and returns tensors by value; when gradients are wanted, the call is recorded as
one node of the judge's own autograd graph (`_RemoteCall`), whose backward asks the learner's process for
the vector-Jacobian product through the graph it recorded there, and is itself recorded when a higher
derivative is wanted. So `gradcheck`, `gradgradcheck`, `torch.autograd.grad` and direct comparisons all
run here, on tensors this process computed or decoded, against references computed here.

In-place effects cross too: an input the learner's code changed is changed here (through `.data`, plus a
version-counter bump when the change there moved the counter: `x.mul_()` does, `x.data.mul_()` does not); an
input changed in place and returned with a new history (`ctx.mark_dirty`) comes back as that very input, its
history here ending at the call's node; and an input the judge changes in place after the call is changed
there before backward. So autograd's version counters on both sides see what they would see in one process.
A tensor with a history here has one there too (a clone of a leaf), so in-place ops on it are legal there.
"""

from __future__ import annotations

import time
import weakref

import torch

from autograder import paths
from autograder.engine import shared
from autograder.engine.sandbox import codec, mirror, plans, protocol
from autograder.engine.shared import FakeCtx, Mistake
from autograder.engine.sandbox.channel import Channel, ChannelClosed


class LearnerGone(BaseException):
    """The learner's process ended (or broke its channel) in the middle of a request. BaseException: no
    check's `except Exception` may swallow it."""


class BrokenProtocol(LearnerGone):
    """A reply that is not one protocol.py declares: the test ends with the broken protocol (its message)."""


class Refused(LearnerGone):
    """A reply the judge will not take (a tensor larger than it decodes): the test ends, saying why."""


_ERRORS = {cls.__name__: cls for cls in codec.ERROR_BASES}
facts_of = shared.facts_of  # what the learner's process said about a tensor (None: it is the judge's)


def _remember(tensor: torch.Tensor, node: dict) -> None:
    facts = {"grad_fn": node.get("fn") if type(node.get("fn")) is str else None, "rg": node.get("rg") is True,
             "cls": node.get("cls") if type(node.get("cls")) is str else "Tensor",
             "ptr": node.get("ptr") if type(node.get("ptr")) is int else 0,
             "plain": node.get("plain") is True, "fwd": node.get("fwd") if type(node.get("fwd")) is int else None}
    shared.remember(tensor, facts)


class Remote:
    """One of the learner's objects. Attribute reads and calls are requests to the learner's process."""

    __slots__ = ("_link", "_id", "_info", "__weakref__")

    def __init__(self, link: "Link", handle_id: int, info: dict):
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_id", handle_id)
        object.__setattr__(self, "_info", info)

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__") and name not in ("__name__", "__qualname__", "__doc__"):
            raise AttributeError(name)
        if name in protocol.FUNCTION_METHODS and self._info.get("type") == "FunctionMeta" and "attr" not in self._info:
            # Every Function class has them (its own or torch.autograd.Function's): read there when called, a
            # round trip saved on each. Reading one's own attributes still asks (`Fn.forward.__name__`).
            return Remote(self._link, self._id, {"type": "method", "name": name, "attr": name})
        if name == "__name__" and type(self._info.get("name")) is str and "attr" not in self._info:
            return self._info["name"]  # what the learner's process said when it named the object (handle_of)
        return self._link.exchange({"op": "getattr", "h": self._id, "attr": self._info.get("attr"), "name": name})

    def __setattr__(self, name, value):
        raise AttributeError("the learner's objects cannot be changed from the judge")

    def __call__(self, *args, **kwargs):
        return self._link.call(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<learner's {self._info.get('type', 'object')} {self._info.get('name', '')}>".replace(" >", ">")


shared.set_handle_ids(lambda obj: object.__getattribute__(obj, "_id") if type(obj) is Remote else None)


class Link:
    """The judge's end of one test's channel to the learner's process."""

    serves_calls = True  # the learner's process records every call it serves (`record`)

    def __init__(self, channel: Channel):
        self.channel = channel
        self._ctx_keys: dict = {}
        self.requests = 0        # round trips to the learner's process, and the seconds spent in them (from
        self.request_seconds = 0.0  # sending to the reply decoded): the bench reports both per test
        self.compiling: set = set()  # handles of what a compiling probe returned (shared.compiling_probe)
        self.plans = None        # plans.Replay (or a capture, a dry run): requests answered from a plan
        self.plans_sent = 0

    # --------------------------------------------------------------------------------- encoding
    def _encode(self, message: dict, tensors: list | None = None):
        """Encode a request; every distinct tensor gets an argument index (its position in `tensors`)."""
        index: dict = {}
        if tensors is not None:
            for t in tensors:
                index.setdefault(id(t), len(index))

        def tag(t):
            if id(t) not in index:
                index[id(t)] = len(index)
                if tensors is not None:
                    tensors.append(t)
            return {"arg": index[id(t)]}

        def handle_of(obj):
            if type(obj) is Remote:
                return codec.Handle(obj._id, {"attr": obj._info["attr"]} if "attr" in obj._info else {})
            if isinstance(obj, FakeCtx):  # a stand-in ctx crosses by value, and is the same one each time
                key = self._ctx_keys.setdefault(id(obj), (len(self._ctx_keys) + 1, obj))[0]
                return codec.CtxState(key, f"{type(obj).__module__}:{type(obj).__qualname__}", dict(vars(obj)))
            path = _checks_function(obj)
            if path:
                return codec.Ref(path)
            raise TypeError(f"cannot send a {type(obj).__name__} to the learner's process")

        return codec.encode(message, handle_of, tag)

    def _decode(self, header, buffers, args: list | None = None):
        """Decode a reply. Tensors the learner's process says are (by identity) one of our arguments come
        back as that very tensor; every tensor's facts are remembered."""
        decoded: list = []

        def on_tensor(t, node):
            same = node.get("same")
            if type(same) is list and len(same) == 2 and type(same[1]) is int:
                pool = args if same[0] == "arg" else decoded if same[0] == "out" else None
                if pool is not None and 0 <= same[1] < len(pool):
                    decoded.append(pool[same[1]])  # "out" numbers every output, ours included (see op_call)
                    return pool[same[1]]
            _remember(t, node)
            decoded.append(t)
            return t

        reply = codec.decode(header, buffers, lambda i, info: Remote(self, i, info), on_tensor)
        try:
            protocol.check("reply", reply)
        except protocol.ProtocolError as error:
            raise BrokenProtocol(protocol.LEARNER_BROKE.format(why=error)) from None
        if "error" in reply:
            raise rebuild_error(reply["error"])
        return reply["ok"]

    # ---------------------------------------------------------------------------------- requests
    def exchange(self, message: dict, tensors: list | None = None, identity: bool = True):
        """Send a request, return the reply's value. With `identity`, a tensor the learner's process
        returns that is one of the request's tensors comes back as that very tensor."""
        header, buffers = self._encode(protocol.request(message), tensors)
        taken = self.plans.take(header, buffers, message, tensors or []) if self.plans is not None else None
        if taken is not None and taken[0] == "value":
            return taken[1]
        if taken is not None:
            return self._read_reply(*taken[1], tensors if identity else None)
        self.requests += 1
        start = time.perf_counter()
        try:
            self.channel.send(header, buffers)
            reply_header, reply_buffers = self.channel.recv()
        except (ChannelClosed, OSError, codec.CodecError) as error:
            raise LearnerGone(str(error)) from None
        try:
            return self._read_reply(reply_header, reply_buffers, tensors if identity else None)
        finally:
            self.request_seconds += time.perf_counter() - start

    def _read_reply(self, header, buffers, args):
        try:
            return self._decode(header, buffers, args)
        except codec.TooLarge as error:
            raise Refused(f"your code returned {error}") from None
        except codec.CodecError as error:  # never a ValueError a check could take for the learner's own
            raise LearnerGone(str(error)) from None

    def send_plan(self, requests: list) -> list:
        """Requests (each its encoded (header, buffers)) as one plan, in one round trip: [(request, its reply's
        (header, buffers))] for those the learner's side ran (plans.py), its answer checked before any value
        in it is decoded (protocol.plan_results)."""
        self.plans_sent += 1
        frame = {"plan": self.plans_sent, "steps": [h for h, _ in requests],
                 "sizes": [n for h, _ in requests for n in h["sizes"]]}
        protocol.request({"op": "plan", "plan": frame["plan"], "steps": frame["steps"]})
        self.requests += 1
        start = time.perf_counter()
        try:
            self.channel.send(frame, [b for _, bs in requests for b in bs])
            header, buffers = self.channel.recv()
        except (ChannelClosed, OSError, codec.CodecError) as error:
            raise LearnerGone(str(error)) from None
        finally:
            self.request_seconds += time.perf_counter() - start
        if "plan" not in header:  # one reply for all: the tampering report (an error), else not an answer
            self._read_reply(header, buffers, None)
            raise BrokenProtocol(protocol.LEARNER_BROKE.format(why="a reply that is not a plan's"))
        try:
            results = protocol.plan_results(header, len(requests), frame["plan"])
        except protocol.ProtocolError as error:
            raise BrokenProtocol(protocol.LEARNER_BROKE.format(why=error)) from None
        answered, at = [], 0
        for request, (reply, count) in zip(requests, results):
            answered.append((request, (reply, buffers[at:at + count])))
            at += count
        return answered

    # plans.py's way of sending requests together, as a method of the link: gradcheck_plan(fn, inputs, options), a
    # context in which torch's fast-mode gradcheck takes its replies from plans.
    gradcheck_plan = plans.gradcheck_plan
    slow_gradcheck_plan = plans.slow_gradcheck_plan

    def count_as_compiling(self, result) -> None:
        """Calls of `result` (what a compiling probe returned: a compiled function compiles at its first call)
        count as compile time in the benchmark's figures (shared.COMPILING)."""
        if type(result) is Remote:
            self.compiling.add(object.__getattribute__(result, "_id"))

    def call(self, remote: Remote, args: tuple, kwargs: dict):
        if remote._id not in self.compiling:
            return self._call(remote, args, kwargs)
        start = time.perf_counter()
        try:
            return self._call(remote, args, kwargs)
        finally:
            shared.COMPILING[0] += time.perf_counter() - start

    def _call(self, remote: Remote, args: tuple, kwargs: dict):
        tensors = _argument_tensors((args, kwargs), [], set())
        wants_graph = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
        message = {"op": "call", "h": remote._id, "attr": remote._info.get("attr"), "args": args, "kwargs": kwargs,
                   "grad": torch.is_grad_enabled(), "record": wants_graph}
        if not wants_graph:
            result = self.exchange(message, list(tensors))
            self._apply_changes(tensors, result)
            return result["out"]
        box: dict = {}
        flat = _RemoteCall.apply(self, message, box, *tensors)
        node = box["ctx"]  # versions as the caller sees them: after ctx.mark_dirty bumped the rebased inputs'
        node.versions = [t._version for t in tensors]
        node.output_refs = [(j, ref, ref()._version) for j, ref, _ in node.output_refs if ref() is not None]
        return _rebuild(box["out"], box["outputs"], flat)

    def probe(self, name: str, args: tuple, kwargs: dict):
        tensors: list = []
        return self.exchange({"op": "probe", "name": name, "args": args, "kwargs": kwargs}, tensors)

    def record(self, after: bool = False, release: bool = False, backward: bool = False) -> dict:
        """What the learner's process recorded of the last call it served, as it records every call
        (learner_requests.op_record)."""
        reply = self.exchange({"op": "record", "after": bool(after), "release": bool(release),
                               "backward": bool(backward)}, [])
        if type(reply) is not dict:
            raise BrokenProtocol(protocol.LEARNER_BROKE.format(why="a record that is not one"))
        return reply

    def _apply_changes(self, tensors: list, result: dict) -> None:
        mirror.apply_learner_changes(tensors, result)
        for state in result.get("ctx", []) or []:
            if type(state) is codec.CtxState:
                for key, (k, ctx) in self._ctx_keys.items():
                    if k == state.key:
                        vars(ctx).clear()
                        vars(ctx).update(state.state)


def _argument_tensors(value, found: list, seen: set) -> list:
    """The distinct tensors in a call's arguments, in order, stand-in ctxs' attributes included."""
    if isinstance(value, torch.Tensor):
        if id(value) not in seen:
            seen.add(id(value))
            found.append(value)
    elif type(value) in (list, tuple) or isinstance(value, (dict, FakeCtx)):
        items = vars(value).values() if isinstance(value, FakeCtx) else value.values() \
            if isinstance(value, dict) else value
        for item in items:
            _argument_tensors(item, found, seen)
    return found


def _checks_function(obj) -> str:
    """"module:qualname" for a module-level function of the checks, which the learner's process can look up."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if type(module) is str and type(qualname) is str and module.startswith(paths.CHECKS + ".") \
            and "<" not in qualname and callable(obj):
        return f"{module}:{qualname}"
    return ""


class _RemoteCall(torch.autograd.Function):
    """One call in the learner's process, as one node of the judge's graph."""

    @staticmethod
    def forward(ctx, link: Link, message: dict, box: dict, *tensors):
        result = link.exchange(message, list(tensors), identity=False)
        link._apply_changes(list(tensors), result)
        # A call returns any structure (its tensors, flattened, are the outputs); a vjp returns one gradient
        # (or None) per input of the graph, in order.
        outputs = _flatten(result["out"]) if "out" in result else list(result["grads"])
        box["out"] = result.get("out", result.get("grads"))
        box["outputs"] = outputs
        ctx.link, ctx.graph, ctx.inputs = link, result.get("graph"), tensors
        ctx.versions = [t._version for t in tensors]
        ctx.n_outputs = len(outputs)
        fresh = [o if isinstance(o, torch.Tensor) else None for o in outputs]
        # An input the learner's code changed in place and returned with a new history (ctx.mark_dirty): the
        # output IS that input, as in one process, and its history here ends at this node too.
        rebased = mirror.rebased_pairs(result, fresh, tensors)
        for j, i in rebased.items():
            _remember_as(tensors[i], fresh[j])
            fresh[j] = tensors[i]
        if rebased:
            ctx.mark_dirty(*(tensors[i] for i in rebased.values()))
        box["ctx"] = ctx
        # Outputs changed in place later (y.mul_(2)) are changed there too before backward.
        ctx.output_refs = [(j, weakref.ref(o), o._version) for j, o in enumerate(fresh) if o is not None]
        no_grad = [o for o in fresh if o is not None and not _learner_requires_grad(o)]
        if no_grad:
            ctx.mark_non_differentiable(*no_grad)
        return tuple(fresh)

    @staticmethod
    def backward(ctx, *grads):
        if ctx.graph is None:
            return (None, None, None) + (None,) * len(ctx.inputs)
        dirty, dirty_outputs = mirror.judge_changes(ctx.inputs, ctx.versions, ctx.output_refs)
        message = {"op": "vjp", "graph": ctx.graph, "grads": list(grads), "dirty": dirty,
                   "dirty_outputs": dirty_outputs,
                   "create_graph": torch.is_grad_enabled()}
        if torch.is_grad_enabled():
            box: dict = {}
            tensors = list(ctx.inputs) + [g for g in grads if g is not None]
            result = _RemoteCall.apply(ctx.link, message, box, *tensors)
        else:
            reply = ctx.link.exchange(message, list(ctx.inputs) + [g for g in grads if g is not None])
            ctx.link._apply_changes(list(ctx.inputs), reply)
            result = reply["grads"]
        return (None, None, None) + tuple(result)[:len(ctx.inputs)]


def _remember_as(tensor: torch.Tensor, reported: torch.Tensor) -> None:
    """`tensor` (the judge's) now stands for the learner's `reported`: it answers with that tensor's facts."""
    facts = facts_of(reported)
    if facts is not None:
        shared.remember(tensor, facts)


def _learner_requires_grad(t: torch.Tensor) -> bool:
    facts = facts_of(t)
    return bool(facts.get("rg", True)) if facts else True


_flatten = codec.tensors_in


def _rebuild(template, originals: list, replacements):
    """`template` with each of its tensors (in order) replaced by the judge graph's output tensors."""
    it = iter(replacements)
    mapping = {id(o): next(it) for o in originals}

    def walk(v):
        if isinstance(v, torch.Tensor):
            new = mapping.get(id(v), v)
            return new
        if type(v) in (list, tuple):
            return type(v)(walk(x) for x in v)
        if type(v) is dict:
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(template)


def rebuild_error(info, depth: int = 0) -> BaseException:
    """The judge's stand-in for the learner's exception: its base class, message and causes."""
    if type(info) is not dict:
        return LearnerGone("malformed error")
    message = info.get("message") if type(info.get("message")) is str else ""
    if type(info.get("code")) is str:
        return Mistake(info["code"], message)
    cls = _ERRORS.get(info.get("base")) or RuntimeError
    error = cls(message)
    error.learner_type = info.get("type") if type(info.get("type")) is str else cls.__name__
    error.where = info.get("where") if type(info.get("where")) is str else ""
    if type(info.get("cause")) is dict and depth < 4:
        error.__cause__ = rebuild_error(info["cause"], depth + 1)
    return error
