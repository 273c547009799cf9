"""The real node, in the learner's process (shared by several notebooks; see `behaviour`).

A stand-in ctx is an object an answer can recognise (its type, module, MRO, the node attributes it lacks), so no
point rests on it alone: each check that reads a direct call with a stand-in ctx reads the same property of the
node autograd itself made, and needs both to agree. Both readings come from ordinary calls, which the learner's
process records alike (`behaviour/record.py`, `learner_record`): `real_node`, what the node of `Fn.apply` saved and what
else the call left alive; `real_backward`, what the learner's backward returned with that node as its ctx, before
the engine checked or repaired it (`backward_by_its_node` on the judge's side).
Everything is read with accessors bound when this module was imported, before any answer ran (the integrity
checkpoint keeps this module's names as they were). `function_apply` is torch.autograd.Function's own `apply`,
which the probes that run torch.func transforms and forward-mode AD call too.
"""

from __future__ import annotations

import gc

import torch

from autograder.checks import common as c
from autograder.engine import shared


# ----------------------------------------------------------------------------------- the Function's apply

# The descriptor itself (a classmethod on torch 2.13, a C classmethod_descriptor on 2.14): bound to the class
# through __get__ on both, never through the class's own attribute lookup.
_FUNCTION_APPLY = torch.autograd.Function.__dict__["apply"]


def function_apply(Fn, *args):
    """`Fn.apply(*args)` as torch.autograd.Function defines it, whatever `apply` the class itself defines: under a
    torch.func transform that runs the Function's own methods (a class that overrides `apply` to take another
    path for wrapped inputs is run through them all the same). A non-Function is called as it is."""
    if issubclass(type(Fn), type) and issubclass(Fn, torch.autograd.Function):  # a class by its C-level type
        return _FUNCTION_APPLY.__get__(None, Fn)(*args)
    return Fn.apply(*args)


# ------------------------------------------------------------------------------- the real node, as autograd made it

_GRAD_FN = torch._C.TensorBase.__dict__["grad_fn"].__get__
_TYPE, _ISSUBCLASS = type, issubclass
_GC_FREEZE, _GC_UNFREEZE, _GC_OBJECTS, _GC_COLLECT = gc.freeze, gc.unfreeze, gc.get_objects, gc.collect


def _is_tensor(obj) -> bool:
    """A tensor by its C-level type (an object whose `__class__` claims Tensor is not one)."""
    return _ISSUBCLASS(_TYPE(obj), torch.Tensor)


def alive_after(call):
    """(call(), the tensors made during the call that are still alive after it): found by what the garbage
    collector tracks (every tensor object is tracked), not by a walk of containers, so a list nested at any depth,
    a deque, a global dict keyed by id(ctx) or a closure hide nothing. Objects alive before the call are frozen
    out of the collector's lists while it runs; cycles left as garbage are collected first."""
    _GC_FREEZE()
    try:
        result = call()
        _GC_COLLECT()
        made = [obj for obj in _GC_OBJECTS() if _is_tensor(obj)]
    finally:
        _GC_UNFREEZE()
    return result, made


def real_node(Fn, inputs: tuple, grad_output=None) -> dict:
    """out = Fn.apply(*inputs), an ordinary call (`behaviour.record.ordinary_call`: the learner's process records
    every call it serves the same way, so this one cannot be told from any other), then what its real node keeps for
    backward, read from that record after the call.

    Facts: "output" (the tensor returned; None when it is not one, "node" False when it has no node of a Function);
    "saved": one {"kind", "tensor"} per tensor the node saved (its saved_tensors, read through the C accessor), kind
    as `behaviour.record.kind_of` says; "kept": every other tensor made during the call and still alive after it,
    wherever it is kept (on ctx, in any container, in a global), as {"kind", "where", "nbytes", "tensor"};
    "unreadable": where a kept tensor's storage could not be read (the check fails closed on it). With
    `grad_output`: "after" holds the output and the saved tensors as they are after one backward of out with that
    grad_output, an ordinary one too ("grad" the gradient of the first input), "backward_error" what it raised."""
    from autograder.checks.behaviour import record

    inputs = tuple(inputs)
    record.warm_up_calls(Fn, lambda k: fresh(inputs))
    out = record.ordinary_call(Fn, *inputs)
    facts: dict = {"output": out if isinstance(out, torch.Tensor) else None, "node": False, "saved": [], "kept": [],
                   "unreadable": []}
    described = record.recorded()["facts"]  # read before any more of the learner's code runs
    if not isinstance(out, torch.Tensor) or described is None:
        return facts
    facts.update({k: described[k] for k in ("values", "saved", "kept", "unreadable")}, node=True)
    if grad_output is not None:
        first = inputs[0]
        try:
            (grad,) = torch.autograd.grad(out, [first], c.shared_grad_output.as_sent(grad_output), retain_graph=True,
                                           allow_unused=True)
        except (RuntimeError, TypeError, ValueError, NotImplementedError) as error:
            facts["backward_error"] = _first_line(error)
            return facts
        after = record.recorded(after=True).get("after") or {"output": out.detach().clone(), "saved": None}
        facts["after"] = {"output": after["output"], "grad": grad, "saved": after.get("saved")}
        if after.get("saved_error"):
            facts["after"]["saved_error"] = after["saved_error"]
    return facts


def _first_line(error) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text.splitlines()[0][:200] if text else ''}"


_BACKWARD_APPLY = torch.autograd.function.BackwardCFunction.__dict__["apply"]


_FUNCTION_BASE = torch._C._FunctionBase


def _raw(value):
    """A value backward returned, as it crosses: a tensor detached and copied, None as None, anything else as
    {"not_a_tensor": the name of its type}."""
    if value is None:
        return None
    if _is_tensor(value):
        return value.detach().clone()
    return {"not_a_tensor": _TYPE(value).__name__}


def real_backward(Fn, inputs: tuple, grad_outputs: tuple, create_graph: bool = False, then: tuple = ()) -> dict:
    """out = Fn.apply(*inputs), an ordinary call, then one ordinary backward of it with `grad_outputs`: what the
    learner's backward returned with the node autograd made as its ctx, before the engine checked or repaired it
    (a gradient summed to its input's shape, a missing None added). When grading, the learner's process records
    that for every backward of the Function alike (`learner_requests._recording_apply`), and the judge reads the
    record afterwards: no frame, state or input tells this backward from any other. In a notebook the backward is
    called here (`_real_backward_here`).

    Facts: "node" (False when out has no node of Fn's own: then nothing else), "outputs" (the tensors forward
    returned, a tuple), "raw": one entry per value backward returned (a tensor copy, None, or {"not_a_tensor":
    the name of its type}), "returned": "tuple" or "list" (its entries are "raw"), or "one value". `then`: the
    inputs of further ordinary calls made after this one and before its backward."""
    from autograder.checks.behaviour import record

    if record.serving() is None:
        record.noted("record of an ordinary backward")
        return _real_backward_here(Fn, inputs, grad_outputs, create_graph, then)
    inputs, grad_outputs = tuple(inputs), tuple(grad_outputs)
    record.warm_up_calls(Fn, lambda k: fresh(inputs))
    out = record.ordinary_call(Fn, *inputs)
    later = [record.ordinary_call(Fn, *args) for args in then]  # noqa: F841 - alive until the backward
    outputs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    facts: dict = {"node": False, "outputs": tuple(o.detach().clone() if _is_tensor(o) else o for o in outputs)}
    own = shared.handle_id(Fn)
    if own is None or not any(_is_tensor(o) and (shared.facts_of(o) or {}).get("fwd") == own for o in outputs):
        return facts
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if _is_tensor(o) and o.requires_grad and g is not None]
    wanted = [t for t in inputs if _is_tensor(t) and t.requires_grad]
    failure = None
    try:
        torch.autograd.grad([o for o, _ in pairs], wanted, [c.shared_grad_output.as_sent(g) for _, g in pairs],
                            allow_unused=True,
                            create_graph=bool(create_graph))
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as error:
        failure = error
    returned = record.recorded(backward=True).get("backward")
    if returned is None:
        if failure is not None:
            raise failure
        c.fail("backward-unobserved", "backward of the node autograd made for your Function's apply did not run "
                                      "the way autograd runs it (its node class was changed). Leave autograd's "
                                      "node alone.")
    facts.update(node=True, returned=returned["returned"], raw=tuple(returned["raw"]))
    return facts


def _real_backward_here(Fn, inputs: tuple, grad_outputs: tuple, create_graph: bool = False, then: tuple = ()) -> dict:
    """`real_backward` in one process (a notebook): the backward is called with autograd's node, here."""
    inputs = tuple(inputs)
    out = function_apply(Fn, *inputs)
    later = [function_apply(Fn, *args) for args in then]  # noqa: F841 - alive until the backward
    outputs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    facts: dict = {"node": False, "outputs": tuple(o.detach().clone() if _is_tensor(o) else o for o in outputs)}
    nodes = [_GRAD_FN(o) for o in outputs if _is_tensor(o) and _GRAD_FN(o) is not None]
    if not nodes or not isinstance(nodes[0], _FUNCTION_BASE) \
            or getattr(_TYPE(nodes[0]), "_forward_cls", None) is not Fn:
        return facts
    facts["node"] = True
    with torch.set_grad_enabled(bool(create_graph)):
        returned = _BACKWARD_APPLY(nodes[0], *(c.shared_grad_output.as_sent(g) for g in grad_outputs))
    facts["returned"] = _TYPE(returned).__name__ if isinstance(returned, (tuple, list)) else "one value"
    returned = tuple(returned) if isinstance(returned, (tuple, list)) else (returned,)
    facts["raw"] = tuple(_raw(v) for v in returned)
    return facts


def raw_backward_of(Fn, out, leaf, grad_output):
    """What the learner's backward returned for the node of `out` (the output of an earlier ordinary call of Fn, whose
    input was computed from `leaf`), with that node as its ctx and before the engine checked it, after whatever
    calls came since: one ordinary backward of out with grad_output (when grading, read from the record the
    learner's process keeps of every backward, `real_backward`; in a notebook, the node's backward called here).
    A tuple (a value that is neither a tensor nor None as a `Returned`), or None when out has no node of Fn's own
    or no backward of it ran."""
    from autograder.checks.behaviour import record

    if record.serving() is None:
        record.noted("record of an ordinary backward")
        node = _GRAD_FN(out) if _is_tensor(out) else None
        if node is None or not isinstance(node, _FUNCTION_BASE) or getattr(_TYPE(node), "_forward_cls", None) is not Fn:
            return None
        with torch.no_grad():
            returned = _BACKWARD_APPLY(node, c.shared_grad_output.as_sent(grad_output))
        returned = tuple(returned) if isinstance(returned, (tuple, list)) else (returned,)
        return tuple(Returned(_TYPE(v).__name__) if v is not None and not _is_tensor(v) else _raw(v)
                     for v in returned)
    own = shared.handle_id(Fn)
    if own is None or not _is_tensor(out) or (shared.facts_of(out) or {}).get("fwd") != own:
        return None
    try:
        torch.autograd.grad([out], [leaf], [c.shared_grad_output.as_sent(grad_output)], allow_unused=True)
    except (RuntimeError, TypeError, ValueError, NotImplementedError):
        pass  # the engine's verdict on what backward returned: the record holds what it was
    returned = record.recorded(backward=True).get("backward")
    if returned is None:
        return None
    return tuple(Returned(v["not_a_tensor"]) if isinstance(v, dict) else v for v in returned["raw"])


class Returned:
    """Judge side: what backward returned where a gradient goes when it was not a tensor (nor None)."""

    def __init__(self, type_name: str):
        self.type_name = type_name


def type_name(value) -> str:
    """The type name of something backward returned, whichever side read it."""
    return value.type_name if isinstance(value, Returned) else type(value).__name__


def backward_by_its_node(Fn, inputs: tuple, grad_outputs, what: str, rules=None, names=(), as_returned=False,
                         then: tuple = ()):
    """What the learner's backward returns when autograd's own node is its ctx (`real_backward`, in the learner's
    process), as a tuple (a value that is neither a tensor nor None as a `Returned`), or None when Fn.apply made no
    node of Fn's own (the tests that run autograd say so). With `as_returned`, a single value backward returned is
    given as it is, not as a tuple of one. Errors become feedback through `rules`, by default the engine's. `then`:
    the inputs of further calls of Fn made after this one and before its backward (a call's state kept where the
    next call overwrites it shows there)."""
    grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    with c.explained(what, c.engine_rules(names) if rules is None else rules):
        facts = real_backward(Fn, tuple(inputs), grad_outputs, then=then)
    if not facts["node"]:
        return None
    raw = tuple(Returned(v["not_a_tensor"]) if isinstance(v, dict) else v for v in facts["raw"])
    return raw[0] if as_returned and facts["returned"] == "one value" else raw


def fresh(inputs: tuple) -> tuple:
    """The same inputs as new leaves (tensors copied, requires_grad kept), for a second run of the same call."""
    return tuple(t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
                 for t in inputs)
