"""The learner's request handlers: what a test's copy of the learner's process answers, and how.

The copy serves one test's requests over its own socket (`serve`): call one of the learner's objects on tensors
(recording the graph), take a vector-Jacobian product through a recorded graph, read an attribute, or run one
of the fixed probes (`checks.common.probe`). Objects stay here and cross as handles; tensors cross by value,
with the facts only this process knows about them (`_facts`). Before every reply the integrity checkpoint
runs; a change it finds is reported through primitives bound before any learner code ran, and the copy ends.
"""

from __future__ import annotations

import _socket
import importlib
import itertools
import os
import warnings
import weakref

import torch

from autograder import paths
from autograder.engine.sandbox import cells, codec, integrity, learner_record, mirror, protocol
from autograder.engine.sandbox import channel as _channel
from autograder.engine.sandbox.channel import Channel, ChannelClosed

OBJECTS: dict = {}      # handle id -> object
_IDS: dict = {}         # id(object) -> handle id
GRAPHS: dict = {}       # graph id -> (inputs, outputs, leaves, edges) of a recorded call or vjp
LEAVES: dict = {}       # argument index -> the leaf behind that argument, for arguments with a history
CTXS: dict = {}         # ctx key -> this process's stand-in ctx
_GRAPH_IDS = itertools.count(1)  # never reused: a release drops some graphs while others stay live


def new_graph(entry: tuple) -> int:
    GRAPHS[graph := next(_GRAPH_IDS)] = entry
    return graph


# ------------------------------------------------------------------------------------ handles, codec

def handle_of(obj) -> codec.Handle:
    key = id(obj)
    if key not in _IDS:
        _IDS[key] = len(OBJECTS) + 1
        OBJECTS[_IDS[key]] = obj
    info = {"type": type(obj).__name__, "callable": callable(obj)}
    name = getattr(obj, "__name__", None) if isinstance(obj, type) or callable(obj) else None
    if type(name) is str:
        info["name"] = name
    return codec.Handle(_IDS[key], info)


def resolve(handle_id: int, info: dict):
    """The object a handle names; with `info["attr"]` one of a Function's methods (`apply`, `forward`, ...:
    protocol.FUNCTION_METHODS), that method of it, read now."""
    if handle_id not in OBJECTS:
        raise LookupError(f"unknown object {handle_id}")
    attr = info.get("attr")
    return getattr(OBJECTS[handle_id], attr) if attr in protocol.FUNCTION_METHODS else OBJECTS[handle_id]


_CHECKS = paths.CHECKS  # read once, at import, before any answer runs


def checks_object(path: str):
    """A class or function of the checks or engine.shared (FakeCtx) by "module:qualname" (a Ref, a stand-in ctx)."""
    module, _, name = path.partition(":")
    if not (module in (_CHECKS, "autograder.engine.shared") or module.startswith(_CHECKS + ".")):
        raise TypeError("only the checks' own functions and classes are named by path")
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _materialize(value, ctxs: list):
    """Decoded arguments -> objects: CtxState -> this process's stand-in ctx (the same one for the same key),
    each listed in `ctxs` as (key, ctx)."""
    if type(value) is codec.Ref:
        return checks_object(value.path)
    if type(value) is codec.CtxState:
        ctx = CTXS.get(value.key)
        if ctx is None:
            cls = checks_object(value.cls)
            ctx = CTXS[value.key] = cls.__new__(cls)
        vars(ctx).clear()
        vars(ctx).update({k: _materialize(v, ctxs) for k, v in value.state.items()})
        ctxs.append((value.key, ctx))
        return ctx
    if type(value) in (list, tuple):
        return type(value)(_materialize(v, ctxs) for v in value)
    if type(value) is dict:
        return {k: _materialize(v, ctxs) for k, v in value.items()}
    return value


_tensors = codec.tensors_in


def _ctx_states(ctxs: list) -> list:
    return [codec.CtxState(key, f"{type(c).__module__}:{type(c).__qualname__}", dict(vars(c))) for key, c in ctxs]


# Facts about a tensor read through PyTorch's own C accessors, bound before any learner code runs: a Tensor
# subclass's `grad_fn` property, a TorchFunctionMode answering for the getters, or a class whose metaclass
# answers `__name__` cannot change what is reported. (Under DisableTorchFunction the getters skip both.)
_NO_TORCH_FUNCTION = torch._C.DisableTorchFunction
_GRAD_FN = torch._C.TensorBase.__dict__["grad_fn"].__get__
_REQUIRES_GRAD = torch._C.TensorBase.__dict__["requires_grad"].__get__
_IS_LEAF = torch._C.TensorBase.__dict__["is_leaf"].__get__
_NUMEL = torch._C.TensorBase.numel
_STORAGE = torch._C.TensorBase.untyped_storage
_DATA_PTR = torch._C.StorageBase.data_ptr
_TYPE_NAME = type.__dict__["__name__"].__get__
_TYPE_DICT = type.__dict__["__dict__"].__get__
_PROXY_GET = type(type.__dict__).get
_TENSOR = torch.Tensor
_NODE = torch.autograd.function.BackwardCFunction
_EDGE = torch.autograd.graph.get_gradient_edge


def _edges(outputs: list) -> list:
    """Where each output's gradient enters the graph, as the call left it: a later vjp starts there, as the judge's
    engine does from the edge it took at the call. (Asking the output itself again would re-read its history: an
    output a custom Function returned as an input's alias, changed in place since, would then raise where one
    process does not.)"""
    return [_edge_or_itself(o) if isinstance(o, _TENSOR) and o.requires_grad else None for o in outputs]


def _edge_or_itself(output):
    try:
        return _EDGE(output)
    except (RuntimeError, TypeError, ValueError):  # a tensor whose edge cannot be taken: the vjp asks the tensor
        return output
_type, _issubclass, _isinstance, _bool, _int = type, issubclass, isinstance, bool, int


def _facts(t, same: dict) -> dict:
    """What only this process knows about a tensor it sends: its node's real class (and, for a Function's
    node, which Function class it runs the backward of, as a handle), whether it is a plain torch.Tensor."""
    node = _GRAD_FN(t)
    kind = _type(node)
    facts = {"fn": _TYPE_NAME(kind) if node is not None else None, "rg": _bool(_REQUIRES_GRAD(t)),
             "leaf": _bool(_IS_LEAF(t)), "ptr": _int(_DATA_PTR(_STORAGE(t))) if _NUMEL(t) else 0,
             "plain": _type(t) is _TENSOR}
    if node is not None and _issubclass(kind, _NODE):
        forward_cls = _PROXY_GET(_TYPE_DICT(kind), "_forward_cls")
        if _isinstance(forward_cls, _type):
            facts["fwd"] = handle_of(forward_cls).id
    if not facts["plain"]:
        facts["cls"] = _TYPE_NAME(_type(t))
    if id(t) in same:
        facts["same"] = same[id(t)]
    return facts


def _reply_frame(value, same: dict | None = None) -> tuple:
    """`value` as a reply (header, buffers); a tensor that is (by identity) an argument or output in `same` says so."""
    same = same or {}
    with _NO_TORCH_FUNCTION():
        return codec.encode({"ok": value}, handle_of, lambda t: _facts(t, same))


def error_data(error: BaseException, depth: int = 0) -> dict:
    """An exception as plain data, with what caused it (a few levels: `raise ... from`, or during handling)."""
    from autograder.engine.shared import Mistake

    base = next((b.__name__ for b in codec.ERROR_BASES if isinstance(error, b)), "")
    try:
        message = str(error)[:4000]
    except BaseException:  # noqa: BLE001
        message = ""  # an exception whose str() raises is still reported, by its type
    info = {"type": type(error).__name__[:200], "base": base, "message": message,
            "where": cells.answer_line(error)[:4000]}
    if isinstance(error, Mistake):
        try:
            info["code"] = str(error.code)[:200]
        except BaseException:  # noqa: BLE001
            info["code"] = "exception"
    cause = error.__cause__ or error.__context__
    if isinstance(cause, BaseException) and cause is not error and depth < 4:
        info["cause"] = error_data(cause, depth + 1)
    return info


# ------------------------------------------------------------------------------------------- requests

def _decode_args(header, buffers, created: dict, ctxs: list):
    """Arguments of a request; each tensor becomes a local tensor (requires_grad as in the judge),
    the same local for the same judge tensor."""
    LEAVES.clear()

    def local(t, node):
        index = node.get("arg")
        if type(index) is int and index in created:
            return created[index]
        t, leaf = mirror.local_input(t, node.get("rg") is True, node.get("leaf") is not False or type(index) is not int)
        if leaf is not None:
            LEAVES[index] = leaf
        if type(index) is int:
            created[index] = t
        return t

    return _materialize(codec.decode(header, buffers, resolve, local), ctxs)


def _leaves(created: dict) -> list:
    """The tensors gradients are taken with respect to: each argument, or the leaf behind it."""
    return [LEAVES.get(i, created[i]) for i in sorted(created)]


# Every call is observed alike, so that none is a measured one (checks.behaviour.record): the same frames above the
# learner's code (serve -> op_call -> the learner's object), the collector in the same state (learner_record.observed),
# every backward of a Function the judge calls recorded, and after the call a description of what it keeps for backward
# (a probe from the registry's snapshot); the last few are kept, each with a weak reference to its output (`op_record`).
_DESCRIBE = paths.RECORD_DESCRIBE
_AFTER = paths.RECORD_AFTER
_WEAKREF = weakref.ref
_KEPT_RECORDS = 8


def op_call(message: dict, created: dict, ctxs: list, _probes=integrity.PROBES, _records=[],
            _backwards=learner_record.BACKWARDS) -> tuple:
    if message["h"] in OBJECTS:
        learner_record.record_backwards_of(OBJECTS[message["h"]])
    _backwards.clear()  # a backward read after this call is one of this call's
    fn = resolve(message["h"], {"attr": message.get("attr")})
    args, kwargs = message["args"], message["kwargs"]
    inputs = [created[i] for i in sorted(created)]
    before = mirror.Before(inputs)
    with torch.set_grad_enabled(bool(message.get("grad"))):
        out, made = learner_record.observed(fn, args, kwargs)
    outputs = _tensors(out, [])
    graph = None
    if message.get("record") and any(o.requires_grad for o in outputs):
        graph = new_graph((inputs, outputs, _leaves(created), _edges(outputs)))
    describe = _probes.get(_DESCRIBE)
    try:
        facts = describe(out, made, tuple(inputs)) if describe is not None else None
    except Exception:  # noqa: BLE001 - a call that cannot be described is read as none
        facts = None
    del made
    _records.append({"facts": facts, "graph": graph,
                     "ref": _WEAKREF(out) if _issubclass(_type(out), _TENSOR) else None})
    del _records[:-_KEPT_RECORDS]
    same = mirror.identities(inputs, outputs)
    result = {"out": out, "graph": graph, "changed": mirror.changed(inputs, before), "ctx": _ctx_states(ctxs),
              "bumped": mirror.bumped(inputs, before), "rebased": mirror.rebased(inputs, outputs, before, same)}
    return result, same


def op_record(message: dict, created: dict, ctxs: list, _probes=integrity.PROBES,
              _records=op_call.__defaults__[-2], _backwards=op_call.__defaults__[-1]) -> tuple:
    """The record of the last call (`op_call`): its description; with "after", its output and what its node saved
    as they are now; with "release", for each recorded call (oldest first), whether its output died as soon as this
    process let go of it and of its graph (nothing else runs meanwhile: everything the call made is frozen out of the
    collector's reach) and, if one did not, whether a full collection frees each."""
    if not _records:
        return {"facts": None}, {}
    record = _records[-1]
    reply = {"facts": record["facts"]}
    if message.get("backward"):  # what the last backward since the call returned, if its node class still records
        last = _backwards[-1] if _backwards else None
        intact = last is not None and learner_record.records_backwards(last["cls"])
        reply["backward"] = {"returned": last["returned"], "raw": last["raw"]} if intact else None
    ref = record["ref"]
    if message.get("after"):
        out = ref() if ref is not None else None
        reply["after"] = _probes[_AFTER](out) if out is not None else None
        del out
    if message.get("release"):  # every recorded call at once: no call is made after a release it could notice
        refs = [r["ref"] for r in _records]
        for r in _records:
            GRAPHS.pop(r["graph"], None)
        _records.clear()
        del record, ref
        reply["freed"] = [r is None or r() is None for r in refs]
        if not all(reply["freed"]):
            learner_record.collected_now()
            reply["collected"] = [r is None or r() is None for r in refs]
    return reply, {}


def op_vjp(message: dict, created: dict, ctxs: list) -> tuple:
    """Gradients of a recorded graph's outputs with respect to its inputs, weighted by `grads`."""
    inputs, outputs, leaves, edges = GRAPHS[message["graph"]]
    mirror.apply_judge_changes(inputs, outputs, message.get("dirty", {}), message.get("dirty_outputs", {}))
    grads = message["grads"]
    before = mirror.Before(inputs)
    pairs = [(e, g if g is not None else torch.zeros_like(o)) for o, e, g in zip(outputs, edges, grads)
             if e is not None]
    wanted = [i for i, t in enumerate(leaves) if t.requires_grad]
    create = bool(message.get("create_graph"))
    result = [None] * len(inputs)
    if pairs and wanted:
        # backward(), not grad(): like the judge's own backward it runs every node the outputs reach (a
        # once_differentiable error node among them), and the leaves here collect .grad.
        for i in wanted:
            leaves[i].grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_graph's note on reference cycles
            torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs], create_graph=create,
                                    retain_graph=True)
        for i in wanted:
            result[i], leaves[i].grad = leaves[i].grad, None
    graph = None
    if create:
        graph = new_graph((inputs + [created[i] for i in sorted(created)], result, leaves + _leaves(created),
                           _edges(result)))
    return {"grads": result, "graph": graph, "changed": mirror.changed(inputs, before),
            "bumped": mirror.bumped(inputs, before)}, {}


def op_probe(message: dict, created: dict, ctxs: list, _probes=integrity.PROBES) -> tuple:
    fn = _probes[message["name"]]  # the registry as it was before any answer ran (integrity.record)
    return fn(*message["args"], **message["kwargs"]), {}


def op_getattr(message: dict, created: dict, ctxs: list) -> tuple:
    return getattr(resolve(message["h"], {"attr": message.get("attr")}), message["name"]), {}


OPERATIONS = {"call": op_call, "vjp": op_vjp, "probe": op_probe, "getattr": op_getattr, "record": op_record}


# A tampering report goes out through C-level primitives bound here, before any learner code ran (the codec, the
# channel, json and the socket class may be the very things an answer patched to rewrite it).
_SOCKET = _socket.socket
_SENDALL = _socket.socket.sendall
_EXIT = os._exit
_PACK_PREFIX = _channel.PREFIX.pack
_SHOWN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:()<>, -")
_TAMPERING = ("your code replaced or removed objects PyTorch or the grader rely on ({}). Tests do not run on a "
              "modified PyTorch, NumPy or Python; remove that code.")


def _tampering_frame(found: list) -> bytes:
    """The error reply that says so, written without the codec, json or anything an answer can patch."""
    shown = ", ".join(found[:5]) + (" ..." if len(found) > 5 else "")
    text = _TAMPERING.replace("{}", "".join([ch for ch in shown if ch in _SHOWN]))
    header = ('{"v": {"D": {"error": {"D": {"type": "Mistake", "base": "AssertionError", "message": "' + text
              + '", "where": "", "code": "tampering"}}}}, "sizes": []}').encode("ascii")
    return _PACK_PREFIX(len(header), 0) + header


def serve(channel: Channel, _changed=integrity.changed, _operations=OPERATIONS, _frame=_tampering_frame,
          _sendall=_SENDALL, _socket_type=_SOCKET, _exit=_EXIT, _isinstance=isinstance) -> None:
    """One test's requests, until the judge says `end` or closes the channel. Before every reply (an error
    too) the integrity checkpoint runs; if it finds a change, the report goes out and this copy ends. A plan's
    requests (protocol.PLAN_FRAME) each run here as alone (the same frames, fresh arguments, the checkpoint), in
    order, their replies in one answer; the first that raised or changed its inputs is the last to run."""
    while True:
        try:
            header, buffers = channel.recv()
        except (ChannelClosed, OSError, codec.CodecError):
            _exit(0)
        plan = header.get("plan") if "steps" in header else None
        steps = protocol.plan_steps(header, buffers) if plan is not None else [(header, buffers)]
        if steps is None:
            _exit(0)  # not a plan the judge writes
        replies: list = []
        for header, buffers in steps:
            created, ctxs, failure = {}, [], None
            try:
                message = _decode_args(header, buffers, created, ctxs)
                if type(message) is not dict or message.get("op") not in _operations:
                    _exit(0)  # `end`, or nothing we know
                value, same = _operations[message["op"]](message, created, ctxs)
            except BaseException as error:  # noqa: BLE001 - the learner's failure is the judge's to read
                failure = error
            try:
                tampered = _changed()
            except BaseException:  # noqa: BLE001 - a checkpoint that cannot run is a finding too
                tampered = ["the integrity checkpoint"]
            if tampered:
                try:
                    sock = channel.sock
                    if _isinstance(sock, _socket_type):
                        _sendall(sock, _frame(tampered))
                finally:
                    _exit(0)
            last = failure is not None or mirror.reports_change(value)
            try:
                reply = _reply_frame(value, same) if failure is None else codec.encode({"error": error_data(failure)})
            except (TypeError, codec.CodecError) as error:
                reply = codec.encode({"error": error_data(TypeError(f"the result cannot be graded: {error}"))})
                last = True
            # Nothing of a request outlives it here: its output lives on where the learner's code or a graph keeps it.
            value = same = message = created = ctxs = failure = None
            if plan is None:
                channel.send(*reply)
                break
            replies.append(reply)
            if last:
                break
        if plan is not None:
            channel.send({"plan": plan, "results": [h for h, _ in replies],
                          "sizes": [n for h, _ in replies for n in h["sizes"]]}, [b for _, bs in replies for b in bs])
        replies = steps = header = buffers = None

