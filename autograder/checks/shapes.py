"""Checks for notebook 03 (shapes): `unbroadcast`, `BroadcastMul` and `SumDim`.

- `unbroadcast(grad, shape)` sums `grad` down to `shape` under broadcasting rules.
- `BroadcastMul.apply(a, b)` is `a * b` with broadcasting; each gradient has exactly its input's shape.
- `SumDim.apply(x, dim, keepdim)` is `x.sum(dim, keepdim=keepdim)`; the gradient of x has x's shape.

The autograd engine sums a gradient that has the broadcast shape down to the input's shape by itself,
so a missing un-broadcast passes every check that goes through the engine (and gradcheck). The `shapes`
checks therefore call forward and backward directly, with a `FakeCtx`, and look at what backward returns; and,
since a stand-in ctx can be recognised, they also call backward with the node autograd made for `.apply` as its
ctx (`behaviour.backward_by_its_node`, before the engine's repair), and need both to pass.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common import Rule


def _fmt(shape) -> str:
    """(3,) style, () for a scalar: how Python prints a shape tuple."""
    return str(tuple(int(n) for n in shape))


# ------------------------------------------------------------------------------------------ unbroadcast

def reference_unbroadcast(grad: torch.Tensor, shape) -> torch.Tensor:
    """Trusted reference: drop extra leading dims by summing, then sum size-1 dims with keepdim."""
    shape = tuple(int(n) for n in shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if dims:
        grad = grad.sum(dim=dims, keepdim=True)
    return grad


# Hand-picked pairs (shape of grad, target shape). The values and size-1 pairs all have extra leading dimensions,
# and the pairs with none to remove (where grad.sum(dim=()) would sum everything) are the edge cases': one rule,
# one test.
LEADING_PAIRS = [((2, 3), (3,)), ((4, 2, 3), (2, 3)), ((4, 2, 3), (3,)), ((5,), ()), ((2, 3), ()),
                 ((3, 3), (3,)), ((2, 2, 3), (2, 3))]
SIZE1_PAIRS = [((4, 2, 3), (1, 3)), ((4, 2, 3), (2, 1)), ((5, 4, 2, 3), (4, 1, 3)), ((2, 4, 2, 3), (1, 2, 1)),
               ((4, 2, 3), (1, 1)), ((5, 4, 2, 3), (4, 1, 1)), ((3, 4), (1,)), ((2, 5, 1, 3), (5, 1, 1)),
               ((4, 2, 1, 3), (1, 1, 3)), ((2, 3, 1), (1, 1)), ((2, 6), (1,))]
# ... and the edge cases widen no size-1 dimension (that is the size-1 pairs' rule).
EDGE_PAIRS = [((), ()), ((1,), ()), ((1, 1), (1,)), ((1, 1), ()), ((1, 1, 3), (1, 1, 3)), ((3, 1), (3, 1)),
              ((2, 3, 4), (2, 3, 4)), ((1, 4), (4,)), ((1,), (1,)), ((2, 3), (2, 3)), ((3,), (3,))]


def random_pairs(count: int = 40, seed: int = 0, widen: bool = True):
    """Deterministic (for one base seed) broadcast pairs: target of 0-4 dims, grad with extra leading
    dims and (if `widen`) size-1 target dims widened. Varies with the grader's base seed."""
    rng = random.Random(9173 + seed + c.base_seed())
    pairs = []
    for _ in range(count):
        target = tuple(rng.choice((1, 1, 2, 3)) for _ in range(rng.randint(0, 4)))
        leading = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
        widened = tuple(rng.choice((1, 2, 3, 4)) if n == 1 else n for n in target)
        widened = widened if widen else target
        pairs.append((leading + widened, target))
    return pairs


@dataclass(frozen=True)
class Drawn:
    """A row of a case table standing for `count` pairs drawn when the check runs (random_pairs), so that they
    vary with the grader's base seed."""

    count: int
    widen: bool = True      # False: no size-1 dimension widened (the edge cases' draws)


def _pairs(cases):
    for case in cases:
        yield from (random_pairs(case.count, widen=case.widen) if isinstance(case, Drawn) else [case])


# (grad shape, target shape, seed): seed None is grad = arange, whose values the feedback can show.
VALUES_CASES = (((2, 3), (3,), None), ((2, 3), (), None))          # the statement's two with leading dimensions
LEADING_CASES = tuple((gs, ts, 10 + k) for k, (gs, ts) in enumerate(LEADING_PAIRS))
SIZE1_CASES = tuple((gs, ts, 30 + k) for k, (gs, ts) in enumerate(SIZE1_PAIRS))
MANY_CASES = tuple(EDGE_PAIRS) + (Drawn(40, widen=False),)   # (grad shape, target shape), then 40 drawn pairs

UNBROADCAST_RULES = (
    Rule("not-implemented", types=(NotImplementedError,),
         message="unbroadcast is not implemented yet (it still raises NotImplementedError)."),
    Rule("unbroadcast-raised", None, "{what} raised {kind}: {line}. `shape` may be a torch.Size or a tuple of "
         "ints; grad may be a scalar tensor."),
)


def _shape_advice(got: tuple, grad_shape: tuple, target: tuple) -> tuple[str, str]:
    """(code, plain-words advice) for a result of the wrong shape."""
    if len(got) > len(target):
        extra = len(got) - len(target)
        return ("leading-dims-kept",
                f"it still has {extra} extra leading dimension(s): sum them away, the result must have "
                f"exactly {len(target)} dimension(s).")
    if len(got) < len(target):
        if len(got) == 0 and len(grad_shape) == len(target):
            return ("summed-everything",
                    "there were no extra leading dimensions, and the result is a scalar: careful, "
                    "grad.sum(dim=()) sums over EVERY dimension; skip that sum when there is nothing to remove.")
        ones = sum(1 for n in target if n == 1)
        if ones and len(got) >= len(target) - ones:
            return ("size1-dropped",
                    "the size-1 dimensions of the target shape must stay in the result, with size 1: "
                    "sum over them with keepdim=True.")
        return ("too-many-dims-summed",
                "you removed too many dimensions: only the extra LEADING dimensions disappear; the others stay.")
    wide = [i for i, (g, t) in enumerate(zip(got, target)) if t == 1 and g != 1]
    if wide:
        i = wide[0]
        return ("size1-not-summed",
                f"dimension dim={i} has size 1 in the target but size {got[i]} in your result: broadcasting "
                "copied that size-1 dimension, so sum over it with keepdim=True.")
    return ("wrong-unbroadcast-shape", "compare it with the target shape, dimension by dimension.")


def _run_unbroadcast(unbroadcast, grad: torch.Tensor, shape):
    what = f"unbroadcast(grad of shape {_fmt(grad.shape)}, {_fmt(shape)})"
    with c.explained(what, UNBROADCAST_RULES):
        return unbroadcast(grad, shape), what


def _check_one_unbroadcast(unbroadcast, grad_shape, target, seed, as_size: bool) -> None:
    """One case; seed None is grad = arange (float64), and then the feedback shows the numbers."""
    if seed is None:
        grad = torch.arange(float(torch.Size(grad_shape).numel()), dtype=torch.float64).reshape(grad_shape)
    else:
        grad = c.randn(*grad_shape, seed=seed, requires_grad=False)
    before = grad.clone()
    shape = torch.Size(target) if as_size else tuple(target)
    result, what = _run_unbroadcast(unbroadcast, grad, shape)
    if not isinstance(result, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor, got {type(result).__name__}.")
    if not torch.equal(grad, before):
        c.fail("grad-modified", f"{what} changed grad in place: build a new tensor (sum returns one).")
    got = tuple(result.shape)
    if got != tuple(target):
        code, advice = _shape_advice(got, tuple(grad_shape), tuple(target))
        c.fail(code, f"{what} returned shape {_fmt(got)}, but it must return exactly shape {_fmt(target)}: "
                     f"{advice}")
    if result.dtype != grad.dtype:
        c.fail("wrong-dtype", f"{what} returned dtype {result.dtype}; keep grad's dtype ({grad.dtype}).")
    expected = reference_unbroadcast(grad, target)
    if bool(torch.allclose(result, expected, rtol=1e-7, atol=1e-7)):
        return
    copies = max(grad.numel(), 1) / max(expected.numel(), 1)
    if copies > 1 and bool(torch.allclose(result, expected / copies, rtol=1e-7, atol=1e-7)):
        c.fail("mean-not-sum",
               f"{what} averaged (mean) the broadcast copies instead of adding them up: every copy "
               "contributed to the loss, so their gradients add. Use sum, not mean.")
    shown = f" (grad = {grad.tolist()}: got {result.tolist()}, expected {expected.tolist()})" if seed is None else ""
    c.fail("wrong-unbroadcast-values",
           f"{what} has the right shape but wrong values{shown}: each entry must be the SUM of all entries of grad "
           "that were broadcast from it (sum over the extra leading dims and over the widened size-1 dims).")


def _require_callable(unbroadcast) -> None:
    if not callable(unbroadcast):
        c.fail("not-defined", "`unbroadcast` must be a function unbroadcast(grad, shape).")


def unbroadcast_values(unbroadcast, cases=VALUES_CASES) -> None:
    """The statement's examples (grad = arange(6) as (2, 3)); the hidden block adds pairs that only remove
    leading dimensions."""
    _require_callable(unbroadcast)
    c.require_self_contained(unbroadcast, "unbroadcast")
    for k, (gs, ts, seed) in enumerate(cases):
        _check_one_unbroadcast(unbroadcast, gs, ts, seed, as_size=seed is None or k % 2 == 0)


def unbroadcast_size1(unbroadcast, cases=(SIZE1_CASES[0], SIZE1_CASES[3])) -> None:
    """Targets with size-1 dims (first, middle, last, together with leading dims)."""
    _require_callable(unbroadcast)
    for k, (gs, ts, seed) in enumerate(cases):
        _check_one_unbroadcast(unbroadcast, gs, ts, seed, as_size=k % 2 == 1)


def unbroadcast_many(unbroadcast, cases=(((), ()), ((1, 1), ()), ((1, 1, 3), (1, 1, 3)), ((2, 3), (2, 3)),
                                         Drawn(5, widen=False))) -> None:
    """Edge cases (scalars, nothing to do, no leading dimension to remove) and generated pairs (`Drawn` rows),
    none with a widened size-1 dimension (unbroadcast_size1's rule)."""
    _require_callable(unbroadcast)
    for k, (gs, ts) in enumerate(_pairs(cases)):
        _check_one_unbroadcast(unbroadcast, gs, ts, seed=50 + k, as_size=k % 3 != 0)


# ------------------------------------------------------------------------------------------ direct calls


def _direct(Fn, name: str, needs, args, grad_output):
    """Call forward then backward by hand with a FakeCtx (as autograd would, minus its shape fix-ups)."""
    ctx = c.FakeCtx(needs)
    with torch.no_grad():
        if c.uses_setup_context(Fn):
            out = c.call(Fn.forward, *args, what=f"{name}.forward")
            c.call(Fn.setup_context, ctx, tuple(args), out, what=f"{name}.setup_context")
        else:
            out = c.call(Fn.forward, ctx, *args, what=f"{name}.forward")
        grads = c.call(Fn.backward, ctx, grad_output, what=f"{name}.backward")
    if isinstance(grads, torch.Tensor) or grads is None:
        grads = (grads,)
    return out, tuple(grads)


# ------------------------------------------------------------------------------------------ BroadcastMul

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
                    hint=_MUL_HINT, names=INPUTS_MUL)


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


# ------------------------------------------------------------------------------------------------ SumDim

SUM_CASES = [((3, 4), 1, False), ((3, 4), 0, False), ((3, 4), -1, True), ((3, 4), 1, True),
             ((2, 3, 4), 1, False), ((2, 3, 4), -2, True), ((2, 3, 4), 2, False), ((2, 3, 4), -1, False),
             ((2, 3, 4), -3, False), ((4, 4), 1, False), ((4, 4), -1, False), ((3,), 0, False),
             ((3,), -1, True), ((2, 1, 3), 1, False), ((3, 3, 3), 0, True)]
# Sums over the first dimension without keepdim, where grad_output lines up with x from the right and so needs
# no unsqueeze (with or without one it is right): the tests of the other rules use them, so that putting the summed
# dimension back (or not) costs only sumdim_values' point.
# (A negative dim is sumdim_values' too: which dimension it names is part of putting it back.)
SUM_LEADING_CASES = [((3, 4), 0, False), ((2, 3, 4), 0, False), ((3,), 0, False), ((1, 5), 0, False),
                     ((2, 1, 3), 0, False), ((4, 4), 0, False), ((5, 2), 0, False), ((2, 2, 2, 2), 0, False)]
SUM_NONE_CASES = (((3, 4), 0, False), ((2, 3, 4), 0, False))
SUM_GRADCHECK_CASES = tuple((shape, dim, keepdim, 20 * seed + k)        # ... and a seed
                            for seed in (0, 1) for k, (shape, dim, keepdim) in enumerate(SUM_LEADING_CASES))
INPUTS_SUM = ("x", "dim", "keepdim")
_SUM_HINT = ("backward must hand every element of x the gradient of the sum it went into: "
             "grad_output.unsqueeze(dim) (only when keepdim is False), then .expand(x.shape).")

# The errors a wrong SumDim.backward produces, then the engine's own.
SUM_RULES = (
    Rule("missing-unsqueeze", "The expanded size of the tensor",
         "{what}: backward could not expand grad_output to x's shape ({line}). With keepdim=False the summed "
         "dimension is gone from grad_output, so expand lines it up against the wrong dimensions: put it back "
         "first with grad_output.unsqueeze(dim) (a negative dim counts from the end of x's shape, not "
         "grad_output's).", types=(RuntimeError,)),
    Rule("unsqueeze-with-keepdim", "must be greater or equal to the number of dimensions in the tensor",
         "{what}: backward made grad_output longer than x ({line}). With keepdim=True grad_output already has "
         "the summed dimension (size 1): unsqueeze only when keepdim is False.", types=(RuntimeError,)),
    Rule("missing-expand", r"returned an invalid gradient at index 0 - got \[(?P<got>.*?)\] but expected shape "
         r"compatible with \[(?P<expected>.*?)\]",
         "{what}: backward returned a gradient of shape [{got}] for input 1 (x) of shape [{expected}]. "
         "grad_output has the reduced shape of the output; expand it back to x's shape "
         "(grad_output.unsqueeze(dim) when keepdim is False, then .expand(x.shape)).", types=(RuntimeError,)),
) + c.engine_rules(INPUTS_SUM)


def _sum_what(shape, dim, keepdim) -> str:
    return f"SumDim.apply(x, {dim}, {keepdim}) with x of shape {_fmt(shape)}"


def _sum_engine(SumDim, x, dim, keepdim, g):
    what = _sum_what(x.shape, dim, keepdim)
    out = c.call(SumDim.apply, x, dim, keepdim, what="SumDim.forward", names=INPUTS_SUM)
    c.require_close(out, x.detach().sum(dim, keepdim=keepdim), what, "wrong-forward",
                    "forward returns x.sum(dim, keepdim=keepdim).")
    c.require_own_node(out, SumDim, "SumDim")
    with c.explained(what, SUM_RULES):
        (grad,) = torch.autograd.grad(out, [x], g)
    return grad


def _expected_sum_grad(shape, dim, keepdim, g):
    return (g if keepdim else g.unsqueeze(dim)).expand(shape)


def sumdim_values(SumDim, cases=(SUM_CASES[0], SUM_CASES[3])) -> None:
    """Values and gradient through autograd, one case per (x's shape, dim, keepdim)."""
    c.require_function(SumDim, "SumDim")
    c.require_self_contained(SumDim, "SumDim")
    for k, (shape, dim, keepdim) in enumerate(cases):
        x = c.randn(*shape, seed=900 + k)
        out_shape = x.detach().sum(dim, keepdim=keepdim).shape
        g = c.randn(*out_shape, seed=1000 + k, requires_grad=False)
        grad = _sum_engine(SumDim, x, dim, keepdim, g)
        c.require_close(grad, _expected_sum_grad(shape, dim, keepdim, g),
                        f"the gradient of x for {_sum_what(shape, dim, keepdim)}", "wrong-derivative", _SUM_HINT)


def sumdim_gradcheck(SumDim, cases=(((3, 4), 0, False, 0), ((2, 3, 4), 0, False, 1))) -> None:
    """float64 gradcheck, one case per (x's shape, dim, keepdim, seed), on sums that need no unsqueeze
    (SUM_LEADING_CASES): the gradient's values, not where the summed dimension goes back."""
    c.require_function(SumDim, "SumDim")
    for shape, dim, keepdim, seed in cases:
        x = c.randn(*shape, seed=1100 + seed)
        out_shape = x.detach().sum(dim, keepdim=keepdim).shape
        _sum_engine(SumDim, x, dim, keepdim, torch.ones(out_shape, dtype=x.dtype))  # clear errors first
        c.gradcheck(lambda t, d=dim, kd=keepdim: SumDim.apply(t, d, kd), (x,),
                    _sum_what(shape, dim, keepdim), hint=_SUM_HINT, names=INPUTS_SUM[:1])


def sumdim_shape(SumDim, cases=(((4, 4), 0, False), ((2, 3, 4), 0, False))) -> None:
    """backward called directly returns a gradient of EXACTLY x's shape (its values are sumdim_values' and
    sumdim_gradcheck's rule), on sums that need no unsqueeze (SUM_LEADING_CASES)."""
    c.require_function(SumDim, "SumDim")
    for k, (shape, dim, keepdim) in enumerate(cases):
        x = c.randn(*shape, seed=1300 + k)
        out_shape = x.detach().sum(dim, keepdim=keepdim).shape
        g = c.randn(*out_shape, seed=1400 + k, requires_grad=False)
        what = _sum_what(shape, dim, keepdim)
        with c.explained(what, SUM_RULES):
            out, grads = _direct(SumDim, "SumDim", (True, False, False), (x, dim, keepdim), g)
        c.require_shape(out, out_shape, f"SumDim.forward for {what}", code="wrong-forward")
        grad = grads[0] if grads else None
        if not isinstance(grad, torch.Tensor):
            c.fail("missing-gradient", f"{what}: backward returned {type(grad).__name__} as the gradient of x: "
                                       "return a tensor of x's shape first.")
        if tuple(grad.shape) != tuple(shape):
            c.fail("wrong-grad-shape",
                   f"{what}: the gradient of x has shape {_fmt(grad.shape)} but x has shape {_fmt(shape)}: "
                   "expand grad_output back to x's shape (unsqueeze(dim) first when keepdim is False).")
        _sum_shape_by_its_node(SumDim, x, dim, keepdim, g, what)


def _sum_shape_by_its_node(SumDim, x, dim, keepdim, g, what: str) -> None:
    """sumdim_shape's rule once more, with the node autograd made for SumDim.apply as backward's ctx
    (`behaviour.backward_by_its_node`): a stand-in ctx can be recognised, autograd's own node cannot."""
    with c.explained(what, SUM_RULES):
        grads = behaviour.backward_by_its_node(SumDim, behaviour.fresh((x, dim, keepdim)), g, what=what,
                                               rules=SUM_RULES)
    if grads is None:
        return  # no node of its own: sumdim_values says so
    grad = grads[0] if grads else None
    lead = (f"{what}: called directly, backward returned a gradient of x's shape; but with the node autograd made "
            "as its ctx,")
    if not isinstance(grad, torch.Tensor):
        c.fail("missing-gradient", f"{lead} it returned {behaviour.type_name(grad)} as the gradient of x: return a "
                                   "tensor of x's shape whatever the ctx.")
    if tuple(grad.shape) != tuple(x.shape):
        c.fail("wrong-grad-shape",
               f"{lead} the gradient of x has shape {_fmt(grad.shape)} but x has shape {_fmt(x.shape)}: expand "
               "grad_output back to x's shape (unsqueeze(dim) first when keepdim is False) whatever the ctx.")


def sumdim_none(SumDim, cases=SUM_NONE_CASES[:1]) -> None:
    """backward returns exactly three values, None for dim and keepdim (directly and via autograd)."""
    c.require_function(SumDim, "SumDim")
    for k, (shape, dim, keepdim) in enumerate(cases):
        x = c.randn(*shape, seed=1500 + k)
        g = torch.ones(x.detach().sum(dim, keepdim=keepdim).shape, dtype=x.dtype)
        what = _sum_what(shape, dim, keepdim)
        with c.explained(what, SUM_RULES):
            _, grads = _direct(SumDim, "SumDim", (True, False, False), (x, dim, keepdim), g)
        if len(grads) != 3:
            c.fail("wrong-arity", f"{what}: backward returned {len(grads)} value(s) but forward takes 3 inputs "
                                  "(x, dim, keepdim): return the gradient of x, then None, None.")
        for index in (1, 2):
            if grads[index] is not None:
                name = INPUTS_SUM[index]
                c.fail("missing-none",
                       f"{what}: backward returned a {type(grads[index]).__name__} for input {index + 1} ({name}), "
                       f"but {name} is a plain Python value with no gradient: return None there.")
        _sum_engine(SumDim, x, dim, keepdim, g)
