"""Checks for notebook 03's `BroadcastMul` (see `shapes`): `BroadcastMul.apply(a, b)` is `a * b` with
broadcasting; each gradient has exactly its input's shape.

The engine sums a gradient of the broadcast shape down to the input's shape by itself, so `broadcastmul_shapes`
calls forward and backward directly (`shapes_direct`) and with the node autograd made for `.apply` as the ctx
(`behaviour.backward_by_its_node`), and needs both to pass.
"""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.shapes_direct import _direct, _fmt
from autograder.checks.shapes_unbroadcast import reference_unbroadcast


MUL_PAIRS = [((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2, 2)), ((3, 1), (1, 4))]
MUL_ALL = MUL_PAIRS + [(b, a) for a, b in MUL_PAIRS] + [((2, 3), (2, 3)), ((5, 1, 1), (1,))]
# (a's shape, b's shape, seed)
MUL_GRADCHECK_CASES = tuple((sa, sb, 10 * seed + k) for seed in (0, 1) for k, (sa, sb) in enumerate(MUL_ALL))
INPUTS_MUL = ("a", "b")
_MUL_HINT = ("the gradient of a is grad_output * b and the gradient of b is grad_output * a, each then "
             "summed down to its input's shape.")


def _mul_engine(BroadcastMul, a, b, grad_output):
    out = c.call(BroadcastMul.apply, a, b, what="BroadcastMul.forward", names=INPUTS_MUL)
    expected_shape = torch.broadcast_shapes(a.shape, b.shape)
    c.require_close(out, a.detach() * b.detach(), f"BroadcastMul.apply(a, b) for shapes {_fmt(a.shape)} and "
                    f"{_fmt(b.shape)}", "wrong-forward", f"forward returns a * b, of shape {_fmt(expected_shape)}.")
    c.require_own_node(out, BroadcastMul, "BroadcastMul")
    return c.backward_grads(out, [a, b], grad_output, what="BroadcastMul.backward", names=INPUTS_MUL)


def broadcastmul_values(BroadcastMul, cases=MUL_ALL[:1]) -> None:
    """a times b for each (a's shape, b's shape): value and both gradients through autograd."""
    c.require_function(BroadcastMul, "BroadcastMul")
    c.require_self_contained(BroadcastMul, "BroadcastMul")
    for k, (sa, sb) in enumerate(cases):
        a = c.randn(*sa, seed=100 + k)
        b = c.randn(*sb, seed=200 + k)
        out_shape = torch.broadcast_shapes(a.shape, b.shape)
        g = c.randn(*out_shape, seed=300 + k, requires_grad=False)
        grad_a, grad_b = _mul_engine(BroadcastMul, a, b, g)
        for name, x, got, full in (("a", a, grad_a, g * b.detach()), ("b", b, grad_b, g * a.detach())):
            if got is None:
                c.fail("missing-gradient", f"BroadcastMul: {name} requires grad but got no gradient: "
                                           f"backward must return a gradient for {name}.")
            c.require_close(got, reference_unbroadcast(full, x.shape),
                            f"the gradient of {name} (shapes {_fmt(sa)} and {_fmt(sb)})", "wrong-derivative",
                            _MUL_HINT)


def broadcastmul_gradcheck(BroadcastMul, cases=MUL_GRADCHECK_CASES[:1]) -> None:
    """float64 gradcheck, one case per (a's shape, b's shape, seed)."""
    c.require_function(BroadcastMul, "BroadcastMul")
    for sa, sb, seed in cases:
        a = c.randn(*sa, seed=400 + seed)
        b = c.randn(*sb, seed=500 + seed)
        c.gradcheck(BroadcastMul.apply, (a, b), f"BroadcastMul on shapes {_fmt(sa)} and {_fmt(sb)}",
                    hint=_MUL_HINT, names=INPUTS_MUL, reference=torch.mul)


def broadcastmul_shapes(BroadcastMul, cases=MUL_ALL[:1]) -> None:
    """Backward called directly must return gradients of EXACTLY the inputs' shapes.

    Through autograd a missing un-broadcast is invisible (the engine sums for you), so this calls
    forward and backward by hand with a FakeCtx.
    """
    c.require_function(BroadcastMul, "BroadcastMul")
    for k, (sa, sb) in enumerate(cases):
        a = c.randn(*sa, seed=600 + k)
        b = c.randn(*sb, seed=700 + k)
        out_shape = torch.broadcast_shapes(a.shape, b.shape)
        g = c.randn(*out_shape, seed=800 + k, requires_grad=False)
        out, grads = _direct(BroadcastMul, "BroadcastMul", (True, True), (a, b), g)
        c.require_shape(out, out_shape, f"BroadcastMul.forward(ctx, a, b) for shapes {_fmt(sa)} and {_fmt(sb)}")
        if len(grads) != 2:
            c.fail("wrong-arity", f"BroadcastMul.backward returned {len(grads)} value(s) but forward takes 2 "
                                  "inputs (a, b): return one gradient for each, in order.")
        for name, x, got, full in (("a", a, grads[0], g * b.detach()), ("b", b, grads[1], g * a.detach())):
            if not isinstance(got, torch.Tensor):
                c.fail("missing-gradient", f"BroadcastMul.backward returned {type(got).__name__} for {name}, "
                                           f"which requires grad: return its gradient (a tensor).")
            if tuple(got.shape) != tuple(x.shape):
                c.fail("missing-unbroadcast",
                       f"the gradient of {name} has shape {_fmt(got.shape)} but {name} has shape "
                       f"{_fmt(x.shape)}: sum over the broadcast dimensions (unbroadcast(grad, {name}.shape)). "
                       f"(a * b had shape {_fmt(out_shape)}; autograd's engine quietly does this sum for you, "
                       "but anyone calling backward directly gets the wrong shape.)")
            c.require_close(got, reference_unbroadcast(full, x.shape),
                            f"the gradient of {name} returned by backward (shapes {_fmt(sa)} and {_fmt(sb)})",
                            "wrong-derivative", _MUL_HINT)
        _mul_shapes_by_its_node(BroadcastMul, a, b, g)


def _mul_shapes_by_its_node(BroadcastMul, a, b, g) -> None:
    """broadcastmul_shapes' rule once more, with the node autograd made for BroadcastMul.apply(a, b) as backward's
    ctx (`behaviour.backward_by_its_node`): a stand-in ctx can be recognised, autograd's own node cannot."""
    grads = behaviour.backward_by_its_node(BroadcastMul, behaviour.fresh((a, b)), g, names=INPUTS_MUL,
                                           what="BroadcastMul.backward with autograd's own node as its ctx")
    if grads is None:
        return  # no node of its own: broadcastmul_values says so
    lead = ("Called directly, your backward returned the right gradients; but with the node autograd made for "
            "BroadcastMul.apply as its ctx, ")
    if len(grads) != 2:
        c.fail("wrong-arity", f"{lead}BroadcastMul.backward returned {len(grads)} value(s) but forward takes 2 "
                              "inputs (a, b): return one gradient for each, in order.")
    for name, x, got, full in (("a", a, grads[0], g * b.detach()), ("b", b, grads[1], g * a.detach())):
        if not isinstance(got, torch.Tensor):
            c.fail("missing-gradient", f"{lead}it returned {behaviour.type_name(got)} for {name}, which requires "
                                       "grad: return its gradient (a tensor).")
        if tuple(got.shape) != tuple(x.shape):
            c.fail("missing-unbroadcast",
                   f"{lead}the gradient of {name} has shape {_fmt(got.shape)} but {name} has shape "
                   f"{_fmt(x.shape)}: sum over the broadcast dimensions (unbroadcast(grad, {name}.shape)) whatever "
                   "the ctx. (autograd's engine quietly does this sum for you, but anyone calling backward "
                   "directly gets the wrong shape.)")
        c.require_close(got, reference_unbroadcast(full, x.shape),
                        f"{lead}the gradient of {name} returned by backward", "wrong-derivative", _MUL_HINT)
