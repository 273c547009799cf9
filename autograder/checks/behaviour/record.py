"""What a call kept for backward, read after EVERY call of the learner's code, so that no call is a measured one.

A probe that runs the learner's Function itself runs it under frames the answer can name (`sys._getframe()` finds
the probe), in a state it can read (the collector paused, saved-tensor hooks on): an answer that behaves only then
scores for work it does not do. So nothing is measured under a probe. When grading, the learner's serving loop runs
every call the judge makes the same way (`learner_requests.op_call`: the same frames, the collector in the same
state) and, once the call has returned, describes it here (`describe_call`): what the node autograd made saved,
what else the call left alive, and which storages are kept for backward. The judge reads the description of a
call it made as an ordinary one (`recorded`), after the call, so nothing the call could see says whether it will
be read. In a notebook (one process) the same description is taken of a local call (`alive_after`).

`describe_call` and `after_call` are registered as probes: the serving loop finds them in the registry's snapshot
taken before any answer ran (`integrity.PROBES`), as it finds every probe.
"""

from __future__ import annotations

import random
import weakref

import torch

from autograder.checks import common as c
from autograder.checks.behaviour.graph import kept_by_graph, storage_of, tensors_in
from autograder.engine import shared

_GRAD_FN = torch._C.TensorBase.__dict__["grad_fn"].__get__
_NODE_SAVED = torch._C._FunctionBase.__dict__["saved_tensors"].__get__
_FUNCTION_BASE = torch._C._FunctionBase
_TYPE, _ISSUBCLASS, _VARS = type, issubclass, vars
_NO_GRAD = torch.no_grad


def _is_tensor(obj) -> bool:
    return _ISSUBCLASS(_TYPE(obj), torch.Tensor)


def _storage_key(t):
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError, TypeError):
        return None


def _same_view(a, b) -> bool:
    return (_storage_key(a) == _storage_key(b) and tuple(a.shape) == tuple(b.shape)
            and tuple(a.stride()) == tuple(b.stride()) and a.storage_offset() == b.storage_offset())


def kind_of(t, node, inputs: tuple, out) -> str:
    """What a tensor kept for backward is: "output" (the node's own saved output), "input <k>" (the input itself),
    "alias of the output" / "alias of input <k>" (same storage, another tensor object), "copy of the output" /
    "copy of input <k>" (equal values, its own storage), or "other"."""
    if isinstance(out, torch.Tensor):
        if _GRAD_FN(t) is node and _same_view(t, out):
            return "output"
        if any(t is x for x in inputs) and _same_view(t, out):
            return "output"  # an input forward changed in place and returned (autograd returns a view of it)
    for k, x in enumerate(inputs):
        if t is x:
            return f"input {k}"
    if isinstance(out, torch.Tensor) and _storage_key(t) == _storage_key(out):
        return "alias of the output"
    for k, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and _storage_key(t) is not None and _storage_key(t) == _storage_key(x):
            return f"alias of input {k}"
    with _NO_GRAD():
        if isinstance(out, torch.Tensor) and t.shape == out.shape and t.dtype == out.dtype \
                and bool(torch.equal(t.detach(), out.detach())):
            return "copy of the output"
        for k, x in enumerate(inputs):
            if isinstance(x, torch.Tensor) and t.shape == x.shape and t.dtype == x.dtype \
                    and bool(torch.equal(t.detach(), x.detach())):
                return f"copy of input {k}"
    return "other"


def _labels(node) -> dict:
    """storage key -> "ctx.<name>..." for the tensors among the ctx's attributes (names only, for the feedback)."""
    labels: dict = {}
    try:
        attributes = list(_VARS(node).items())
    except TypeError:
        return labels
    for name, value in attributes:
        for where, t in tensors_in(value, f"ctx.{name}"):
            labels.setdefault(_storage_key(t), where)
    return labels


@c.probe
def describe_call(out, made: list, inputs: tuple):
    """What a call that returned `out` keeps for backward (None when `out` is no tensor with a Function's node).
    `made`: the tensors the call made that are alive after it; `inputs`: the call's tensor arguments, in order.

    "values": the output's values; "saved": one {"kind", "tensor"} per tensor the node saved (read through the C
    accessor), kind as `kind_of` says; "kept": every other tensor made by the call and still alive, wherever it is
    (on ctx, in any container, in a global), as {"kind", "where", "nbytes", "tensor"}; "unreadable": where a kept
    tensor's storage could not be read. "storages" (the capstone's view): every distinct storage kept for backward
    (what the node saved, what the graph packed and the ctx holds, what else is alive) as {"nbytes", "is_x" (the
    first input's), "is_output", "tensor", "where"}, with "output_nbytes", "x_nbytes" and "unreadable_shapes"."""
    if not _is_tensor(out):
        return None
    node = _GRAD_FN(out)
    if node is None or not isinstance(node, _FUNCTION_BASE):
        return None
    inputs = tuple(inputs)
    facts: dict = {"values": out.detach().clone(), "saved": [], "kept": [], "unreadable": []}
    saved = tuple(_NODE_SAVED(node))
    facts["saved"] = [{"kind": kind_of(t, node, inputs, out), "tensor": t.detach().clone()} for t in saved]
    known = {_storage_key(t) for t in saved} | {_storage_key(out)}
    labels = _labels(node)
    alive = [t for t in made if t is not out]
    for t in alive:
        if any(t is s for s in saved):
            continue
        key = _storage_key(t)
        where = labels.get(key, "in a container or a global name, off the graph")
        if key is None:
            facts["unreadable"].append(where)
            continue
        if key in known:
            continue
        known.add(key)
        kind = kind_of(t, node, inputs, out)
        if kind.startswith(("input", "alias of input")):
            continue  # the inputs are alive anyway: a view of one keeps nothing new
        facts["kept"].append({"kind": kind, "where": where, "nbytes": int(t.untyped_storage().nbytes()),
                              "tensor": t.detach().clone()})
    facts.update(_storages(out, saved, alive, inputs))
    return facts


def _storages(out, saved: tuple, alive: list, inputs: tuple) -> dict:
    x = inputs[0] if inputs and _is_tensor(inputs[0]) else None
    x_key, out_key = (storage_of(x)[0] if x is not None else None), storage_of(out)[0]
    kept, unreadable = {}, []
    found = [("saved", t) for t in saved] + kept_by_graph([out]) + [("alive", t) for t in alive]
    for where, t in found:
        if where == "alive" and storage_of(t) == (id(t), 0):
            unreadable.append(tuple(t.shape))
            continue
        key, nbytes = storage_of(t)
        if key not in kept:
            kept[key] = {"nbytes": nbytes, "is_x": key == x_key, "is_output": key == out_key,
                         "tensor": t.detach().clone(), "where": where if where.startswith("ctx.") else ""}
    return {"storages": list(kept.values()), "output_nbytes": storage_of(out)[1],
            "x_nbytes": storage_of(x)[1] if x is not None else 0, "unreadable_shapes": unreadable}


@c.probe
def after_call(out):
    """The output of a described call and what its node saved, as they are now (after a backward): "output",
    "saved" (None with "saved_error" when the node refuses to unpack a tensor changed in place)."""
    if not _is_tensor(out):
        return None
    facts: dict = {"output": out.detach().clone(), "saved": None}
    node = _GRAD_FN(out)
    if node is None or not isinstance(node, _FUNCTION_BASE):
        return facts
    try:
        facts["saved"] = [t.detach().clone() for t in _NODE_SAVED(node)]
    except RuntimeError as error:
        text = str(error)
        facts["saved_error"] = f"{type(error).__name__}: {text.splitlines()[0][:200] if text else ''}"
    return facts


# ------------------------------------------------------------------------------------ reading a call's record

class _Local:
    """In one process (a notebook): the record of the last call made through `call`."""

    last: dict = {}

    @classmethod
    def call(cls, fn, args: tuple):
        from autograder.checks.behaviour.node import alive_after

        out, made = alive_after(lambda: fn(*args))
        tensors = tuple(a for a in args if _is_tensor(a))
        cls.last = {"facts": describe_call(out, made, tensors), "ref": weakref.ref(out) if _is_tensor(out) else None}
        return out

    @classmethod
    def read(cls, after: bool = False, release: bool = False) -> dict:
        record = {"facts": cls.last.get("facts")}
        ref = cls.last.get("ref")
        if after:
            record["after"] = after_call(ref()) if ref is not None and ref() is not None else None
        if release:
            cls.last = {}
            record["freed"] = [ref is None or ref() is None]
            if not all(record["freed"]):
                import gc

                gc.collect()
                record["collected"] = [ref is None or ref() is None]
        return record


def noted(fact: str) -> None:
    """Tell the probe-share tool (`maintain.probe_share`, which stands for the judge's link) that a check read `fact`
    from the learner's side without a probe."""
    note = getattr(shared.learner(), "note", None)
    if note is not None:
        note(fact)


def serving():
    """The judge's link when the learner's process serves (and records) the calls, else None."""
    link = shared.learner()
    return link if getattr(link, "serves_calls", False) else None


def ordinary_call(Fn, *args):
    """`Fn.apply(*args)` as any caller makes it. When grading, the learner's serving loop describes this call as it
    describes every call; in a notebook it is described here."""
    if serving() is None:
        return _Local.call(lambda *a: Fn.apply(*a), args)
    return Fn.apply(*args)


def recorded(after: bool = False, release: bool = False, backward: bool = False) -> dict:
    """The record of the last `ordinary_call`: "facts" (`describe_call`'s), with `after` "after" (`after_call`'s,
    read now), with `release` "freed" (for each call recorded since the last release, oldest first: whether its
    output died as soon as the caller's last reference went: the learner's serving loop lets go of every recorded
    call's output and graph at once, nothing else runs) and, when one did not, "collected" (whether the garbage
    collector frees each). With `backward` (when grading), "backward": what the last
    backward of the Function since that call returned, before the engine checked it ({"returned", "raw"}), or None
    when none ran, or its node class no longer records."""
    link = serving()
    if link is None:
        noted("record of an ordinary call")
        return _Local.read(after, release)
    return link.record(after=after, release=release, backward=backward)


_WARM_UPS = random.Random()


def warm_up_calls(Fn, make_args) -> None:
    """A few ordinary calls (0 to 2, drawn by the judge) before the one a test reads, on copies of its inputs: the
    call that is read is not always the first of its kind in the process. (Every call is recorded alike; only the
    last one's record is read.)"""
    if serving() is None:
        return
    _WARM_UPS.seed(c.base_seed() * 7919 + shared.learner().requests)
    for k in range(_WARM_UPS.randrange(3)):
        ordinary_call(Fn, *make_args(k))
