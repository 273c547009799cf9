"""Checks for notebook 03's `BroadcastMul` (see `shapes`): `BroadcastMul.apply(a, b)` is `a * b` with
broadcasting; each gradient has exactly its input's shape.

The engine sums a gradient of the broadcast shape down to the input's shape by itself, so `broadcastmul_shapes`
calls forward and backward directly (`shapes/direct.py`) and with the node autograd made for `.apply` as the ctx
(`behaviour.backward_by_its_node`), and needs both to pass.

These tests judge BroadcastMul's own rules (the product rule, and summing each gradient to its input's shape), not
the learner's `unbroadcast`, which has tests of its own: where the `unbroadcast` backward reads is wrong on the
shapes a test uses, that test runs BroadcastMul with a stand-in in its place (`unbroadcast_set_aside`), so one wrong
helper costs its own points once.
"""

from __future__ import annotations

import contextlib

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common.kept_guarded import change_inputs, require_kept_guarded
from autograder.checks.shapes.direct import direct_call, fmt


MUL_PAIRS = [((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2, 2)), ((3, 1), (1, 4))]
MUL_ALL = MUL_PAIRS + [(b, a) for a, b in MUL_PAIRS] + [((2, 3), (2, 3)), ((5, 1, 1), (1,))]
# (a's shape, b's shape, seed)
MUL_GRADCHECK_CASES = tuple((sa, sb, 10 * seed + k) for seed in (0, 1) for k, (sa, sb) in enumerate(MUL_ALL))
INPUTS_MUL = ("a", "b")
_MUL_HINT = ("the gradient of a is grad_output * b and the gradient of b is grad_output * a, each then "
             "summed down to its input's shape.")
# The shapes test's words where the derivative is right without broadcasting: the sum down is what went wrong.
_SUM_HINT = ("your gradients are right where nothing broadcasts, so the sum back to each input's shape is wrong: "
             "add up every entry that was broadcast from one entry of the input (over the extra leading "
             "dimensions and the widened size-1 ones).")


def _mul_engine(BroadcastMul, a, b, grad_output):
    out = c.call(BroadcastMul.apply, a, b, what="BroadcastMul.forward", names=INPUTS_MUL)
    expected_shape = torch.broadcast_shapes(a.shape, b.shape)
    what = f"BroadcastMul.apply(a, b) for shapes {fmt(a.shape)} and {fmt(b.shape)}"
    c.require_float64_kept(out, a.detach() * b.detach(), what, "forward")
    c.require_close(out, a.detach() * b.detach(), what, "wrong-forward", f"forward returns a * b, of shape "
                    f"{fmt(expected_shape)}.")
    c.require_own_node(out, BroadcastMul, "BroadcastMul")
    return c.backward_grads(out, [a, b], grad_output, what="BroadcastMul.backward", names=INPUTS_MUL)


def _helper_right(helper, pairs) -> bool:
    for k, (grad_shape, shape) in enumerate(pairs):
        grad = torch.randn(grad_shape, dtype=torch.float64, generator=torch.Generator().manual_seed(k))
        try:
            got = helper(grad, torch.Size(shape))
        except Exception:  # noqa: BLE001 - a helper that raises is a wrong helper: the stand-in takes its place
            return False
        # (its dtype first: a float32 result for a float64 grad is a wrong helper, which allclose would refuse)
        if not (isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(shape) and got.dtype == grad.dtype
                and bool(torch.allclose(got.detach(), grad.sum_to_size(tuple(shape))))):
            return False
    return True


_SET_ASIDE: dict = {}  # {id of the namespace: the learner's unbroadcast}, while a test runs on the stand-in


@c.probe
def _set_aside(BroadcastMul, pairs) -> bool:
    """Probe: if the `unbroadcast` BroadcastMul.backward reads (its cell's namespace) is wrong on these (grad shape,
    shape) pairs, put the stand-in in its place until `_put_back`; whether it did."""
    names = getattr(getattr(BroadcastMul, "backward", None), "__globals__", None)
    own = names.get("unbroadcast") if isinstance(names, dict) else None
    if not callable(own) or _helper_right(own, pairs):
        return False
    _SET_ASIDE[id(names)] = own
    # The stand-in, PyTorch's own sum to a broadcast shape, made here (an `unbroadcast` at import would be one the
    # learner could import): it lives in this test's fork only, never where unbroadcast's own tests run.
    names["unbroadcast"] = lambda grad, shape: grad.sum_to_size(tuple(shape))
    return True


@c.probe
def _put_back(BroadcastMul) -> None:
    names = getattr(getattr(BroadcastMul, "backward", None), "__globals__", None)
    if isinstance(names, dict) and id(names) in _SET_ASIDE:
        names["unbroadcast"] = _SET_ASIDE.pop(id(names))


@contextlib.contextmanager
def unbroadcast_set_aside(BroadcastMul, shape_pairs):
    """BroadcastMul's tests on the (a's shape, b's shape) pairs, with a stand-in for the learner's `unbroadcast` where
    that helper is wrong on them (unbroadcast's own tests take its points)."""
    pairs = []
    for sa, sb in shape_pairs:
        out = tuple(torch.broadcast_shapes(torch.Size(sa), torch.Size(sb)))
        pairs += [(out, tuple(sa)), (out, tuple(sb))]
    set_aside = _set_aside(BroadcastMul, pairs)
    try:
        yield
    finally:
        if set_aside:
            _put_back(BroadcastMul)


def broadcastmul_values(BroadcastMul, cases=MUL_ALL[:1]) -> None:
    """a times b for each (a's shape, b's shape): value and both gradients through autograd."""
    c.require_function(BroadcastMul, "BroadcastMul")
    c.require_self_contained(BroadcastMul, "BroadcastMul")
    with unbroadcast_set_aside(BroadcastMul, list(cases) + [_KEPT_SHAPES]):
        with _sum_down_judged_by_shapes(BroadcastMul):
            _through_a_sum(BroadcastMul, cases[0])
            _broadcastmul_values(BroadcastMul, cases)
        _require_inputs_guarded(BroadcastMul)


# a (2, 3) times b (3,): the statement's example, where each input is changed in place after forward on its own
_KEPT_SHAPES = ((2, 3), (3,))


def _require_inputs_guarded(BroadcastMul) -> None:
    """backward needs both inputs: changing either in place after forward (the other left alone) must make backward
    raise autograd's in-place error, or leave the gradients those of the call left alone (a Function that keeps
    copies of its own is right too). a or b kept as a plain ctx attribute escapes the version counter: the values'
    rule, as BroadcastMul has no rule of saving (common/kept_guarded.py)."""
    values = [c.randn(*_KEPT_SHAPES[0], seed=160, requires_grad=False),
              c.randn(*_KEPT_SHAPES[1], seed=260, requires_grad=False)]
    with c.explained("BroadcastMul.apply(a, b)", c.engine_rules(INPUTS_MUL)):
        for position, name in enumerate(INPUTS_MUL):
            require_kept_guarded(BroadcastMul.apply, values, what="BroadcastMul.backward", kept=name,
                                 change=change_inputs(position))


def _through_a_sum(BroadcastMul, shapes) -> None:
    """backward through .sum(), as losses are made: grad_output is then one number broadcast, which backward must not
    write into (any other mistake met here is judged by the cases that follow)."""
    a, b = c.randn(*shapes[0], seed=150), c.randn(*shapes[1], seed=250)
    try:
        out = c.call(BroadcastMul.apply, a, b, what="BroadcastMul.forward", names=INPUTS_MUL)
        c.backward_grads(out.sum(), [a, b], what="BroadcastMul.backward", names=INPUTS_MUL)
    except c.Mistake as failed:
        if failed.code == "inplace-grad-output":
            raise


@contextlib.contextmanager
def _sum_down_judged_by_shapes(BroadcastMul):
    """The derivative's tests on broadcasting shapes: where the gradients are right wherever nothing broadcasts
    (the product rule and grad_output are right), a gradient wrong in shape or value where something broadcasts is
    the sum down to each input's shape, which broadcastmul_shapes judges: one mistake, its own rule's points."""
    try:
        yield
    except c.Mistake as failed:
        if failed.code in ("wrong-forward", "inplace-grad-output", "float32-precision") \
                or not _derivative_right_unbroadcast(BroadcastMul):
            raise


def _with_zeros(t: torch.Tensor, every: int) -> torch.Tensor:
    """t (a leaf) with every `every`-th entry exactly 0, as ReLU outputs and masks have: a gradient that divides the
    output by the other input (out / a for b) is nan there."""
    flat = t.detach().clone().reshape(-1)
    flat[::every] = 0.0
    return flat.reshape(t.shape).requires_grad_(True)


def _broadcastmul_values(BroadcastMul, cases) -> None:
    def one_case(case) -> None:
        k, (sa, sb) = case
        a = _with_zeros(c.randn(*sa, seed=100 + k), 3)
        b = _with_zeros(c.randn(*sb, seed=200 + k), 2)
        out_shape = torch.broadcast_shapes(a.shape, b.shape)
        g = c.randn(*out_shape, seed=300 + k, requires_grad=False)
        grad_a, grad_b = _mul_engine(BroadcastMul, a, b, g)
        for name, x, got, full in (("a", a, grad_a, g * b.detach()), ("b", b, grad_b, g * a.detach())):
            if got is None:
                c.fail("missing-gradient", f"BroadcastMul: {name} requires grad but got no gradient: "
                                           f"backward must return a gradient for {name}.")
            what = f"the gradient of {name} (shapes {fmt(sa)} and {fmt(sb)})"
            c.require_float64_kept(got, full.sum_to_size(x.shape), what, "backward")
            c.require_close(got, full.sum_to_size(x.shape), what, "wrong-derivative", _MUL_HINT)
    c.each(enumerate(cases), one_case)


def broadcastmul_gradcheck(BroadcastMul, cases=MUL_GRADCHECK_CASES[:1]) -> None:
    """float64 gradcheck, one case per (a's shape, b's shape, seed)."""
    c.require_function(BroadcastMul, "BroadcastMul")
    with unbroadcast_set_aside(BroadcastMul, [(sa, sb) for sa, sb, _ in cases]), \
            _sum_down_judged_by_shapes(BroadcastMul):
        _broadcastmul_gradcheck(BroadcastMul, cases)


def _broadcastmul_gradcheck(BroadcastMul, cases) -> None:
    def one_case(sa, sb, seed) -> None:
        a = c.randn(*sa, seed=400 + seed)
        b = c.randn(*sb, seed=500 + seed)
        c.gradcheck(BroadcastMul.apply, (a, b), f"BroadcastMul on shapes {fmt(sa)} and {fmt(sb)}",
                    hint=_MUL_HINT, names=INPUTS_MUL, reference=torch.mul)
    c.each(cases, lambda case: one_case(*case))


@c.inputs_judged_elsewhere()
def broadcastmul_shapes(BroadcastMul, cases=MUL_ALL[:1]) -> None:
    """Backward called directly must return gradients of EXACTLY the inputs' shapes.

    Through autograd a missing un-broadcast is invisible (the engine sums for you), so this calls
    forward and backward by hand with a FakeCtx.
    """
    c.require_function(BroadcastMul, "BroadcastMul")
    with unbroadcast_set_aside(BroadcastMul, cases):
        _broadcastmul_shapes(BroadcastMul, cases)


def _derivative_right_unbroadcast(BroadcastMul) -> bool:
    """Whether BroadcastMul's gradients are right through autograd where nothing broadcasts (no sum to do): then a
    wrong value where something broadcasts is the sum's (this test's rule); else it is the derivative's, which the
    values and gradcheck tests judge, and this test looks at the shapes alone."""
    a, b = _with_zeros(c.randn(2, 3, seed=900), 3), _with_zeros(c.randn(2, 3, seed=901), 2)
    g = c.randn(2, 3, seed=902, requires_grad=False)
    try:
        grads = _mul_engine(BroadcastMul, a, b, g)
    except Exception:  # noqa: BLE001 - a forward or backward that fails here is the values test's to judge
        return False
    return all(isinstance(got, torch.Tensor) and tuple(got.shape) == (2, 3)
               and bool(torch.allclose(got.detach(), want, rtol=1e-7, atol=1e-7))
               for got, want in zip(grads, (g * b.detach(), g * a.detach())))


def _broadcastmul_shapes(BroadcastMul, cases) -> None:
    values_judged = _derivative_right_unbroadcast(BroadcastMul)
    def one_case(case) -> None:
        k, (sa, sb) = case
        a = c.randn(*sa, seed=600 + k)
        b = c.randn(*sb, seed=700 + k)
        out_shape = torch.broadcast_shapes(a.shape, b.shape)
        g = c.randn(*out_shape, seed=800 + k, requires_grad=False)
        out, grads = direct_call(BroadcastMul, "BroadcastMul", (True, True), (a, b), g)
        c.require_shape(out, out_shape, f"BroadcastMul.forward(ctx, a, b) for shapes {fmt(sa)} and {fmt(sb)}")
        if len(grads) != 2:
            c.fail("wrong-arity", f"BroadcastMul.backward returned {len(grads)} value(s) but forward takes 2 "
                                  "inputs (a, b): return one gradient for each, in order.")
        for name, x, got, full in (("a", a, grads[0], g * b.detach()), ("b", b, grads[1], g * a.detach())):
            if not isinstance(got, torch.Tensor):
                c.fail("missing-gradient", f"BroadcastMul.backward returned {type(got).__name__} for {name}, "
                                           f"which requires grad: return its gradient (a tensor).")
            if tuple(got.shape) != tuple(x.shape):
                c.fail("missing-unbroadcast",
                       f"the gradient of {name} has shape {fmt(got.shape)} but {name} has shape "
                       f"{fmt(x.shape)}: sum over the broadcast dimensions (unbroadcast(grad, {name}.shape)). "
                       f"(a * b had shape {fmt(out_shape)}; autograd's engine quietly does this sum for you, "
                       "but anyone calling backward directly gets the wrong shape.)")
            if values_judged:
                c.require_close(got, full.sum_to_size(x.shape),
                                f"the gradient of {name} returned by backward (shapes {fmt(sa)} and {fmt(sb)})",
                                "wrong-unbroadcast-values", _SUM_HINT)
        _mul_shapes_by_its_node(BroadcastMul, a, b, g, values_judged)
    c.each(enumerate(cases), one_case)


def _mul_shapes_by_its_node(BroadcastMul, a, b, g, values_judged: bool) -> None:
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
                   f"{lead}the gradient of {name} has shape {fmt(got.shape)} but {name} has shape "
                   f"{fmt(x.shape)}: sum over the broadcast dimensions (unbroadcast(grad, {name}.shape)) whatever "
                   "the ctx. (autograd's engine quietly does this sum for you, but anyone calling backward "
                   "directly gets the wrong shape.)")
        if values_judged:
            c.require_close(got, full.sum_to_size(x.shape), f"{lead}the gradient of {name} returned by backward",
                            "wrong-unbroadcast-values", _SUM_HINT)
