"""Checks for notebook 09's `ClampWithMask` (see `external`): `ClampWithMask.apply(x, lo, hi)` is
(x.clamp(lo, hi), mask), mask a float tensor of x's dtype, 1 where lo <= x <= hi, marked non-differentiable; the
gradient reaches x only where the mask is 1.
"""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.common.shared_grad_output import require_grad_output_unshared
from autograder.checks.external.shared import call, gradcheck, grads_of


CLAMP = "ClampWithMask"
CLAMP_HINT = "the gradient reaches x only where lo <= x <= hi: return grad_output * mask (and None for lo, hi)."


def _clamp_outputs(ClampWithMask, x, lo, hi):
    out = call(ClampWithMask.apply, x, lo, hi, what="ClampWithMask.forward")
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        c.fail("wrong-outputs", f"ClampWithMask.apply(x, lo, hi) should return a pair (clamped, mask), got "
                                f"{type(out).__name__}.")
    y, mask = out
    if not isinstance(y, torch.Tensor) or not isinstance(mask, torch.Tensor):
        c.fail("not-a-tensor", "ClampWithMask.apply(x, lo, hi) should return two tensors (clamped, mask).")
    return y, mask


def _expected_mask(x, lo, hi):
    xd = x.detach()
    return ((xd >= lo) & (xd <= hi)).to(xd.dtype)


def _require_mask(mask, x, lo, hi, what):
    if mask.dtype == torch.bool:
        c.fail("bool-mask", f"the mask of {what} is a bool tensor: it must be a float tensor of x's dtype "
                            "(1.0 inside, 0.0 outside): convert the comparison's result to x's dtype.")
    if mask.dtype != x.dtype:
        c.fail("wrong-dtype", f"the mask of {what} has dtype {mask.dtype}: it must have x's dtype ({x.dtype}).")
    c.require_shape(mask, x.shape, f"the mask of {what}")
    expected = _expected_mask(x, lo, hi)
    if not bool(torch.equal(mask.detach(), expected)):
        xd = x.detach()
        at_bounds = (xd == lo) | (xd == hi)
        if bool((mask.detach() != expected)[~at_bounds].sum() == 0):
            c.fail("boundary-excluded", f"the mask of {what} is 0 where x equals lo or hi exactly: the boundary "
                                        "points belong inside (use lo <= x <= hi, not <).")
        c.fail("wrong-mask", f"the mask of {what} is wrong: 1.0 where lo <= x <= hi, 0.0 elsewhere.")


def clamp_values(ClampWithMask) -> None:
    """Visible: the clamped values on a small example (the mask and the gradient have tests of their own: one
    mistake costs its own rule's points)."""
    c.require_function(ClampWithMask, CLAMP)
    c.require_self_contained(ClampWithMask, CLAMP)
    x = torch.tensor([-2.0, -0.7, 0.0, 0.4, 1.5], dtype=torch.float64, requires_grad=True)
    lo, hi = -1.0, 1.0
    y, _ = _clamp_outputs(ClampWithMask, x, lo, hi)
    c.require_close(y, x.detach().clamp(lo, hi), "the first output of ClampWithMask.apply(x, -1.0, 1.0)",
                    "wrong-forward", "it should be x.clamp(lo, hi).")
    c.require_own_node(y, ClampWithMask, CLAMP)
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into
    require_grad_output_kept(lambda: [(_clamp_outputs(ClampWithMask, t, -0.5, 0.5)[0], [t]) for t in (
        c.randn(6, seed=60), c.randn(2, 3, seed=61))], f"the gradient of {CLAMP}.apply(x, -0.5, 0.5)[0].sum()", CLAMP,
        ("x", "lo", "hi"))
    require_grad_output_unshared(ClampWithMask, (c.randn(2, 3, seed=62), -0.5, 0.5), CLAMP, output=0)


MASK_CASES = ("marked",)
MASK_TABLE = ("marked", torch.float64, torch.float32)


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def clamp_mask(ClampWithMask, cases=MASK_CASES) -> None:
    """The mask: a tensor of x's dtype, 1 where lo <= x <= hi (lo and hi included), that needs no grad
    (mark_non_differentiable). "marked": on a small example; a dtype: an x of that dtype with points at lo and hi."""
    c.require_function(ClampWithMask, CLAMP)
    def one_case(case) -> None:
        if case == "marked":
            x = torch.tensor([-2.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
            _, mask = _clamp_outputs(ClampWithMask, x, -1.0, 1.0)
            _require_mask(mask, x, -1.0, 1.0, "ClampWithMask.apply(x, -1.0, 1.0)")
            _require_not_differentiable(mask, "ClampWithMask.apply(x, -1.0, 1.0)")
        else:
            _clamp_mask_in(ClampWithMask, case)
    c.each(cases, one_case)


def _require_not_differentiable(mask, what) -> None:
    if mask.requires_grad:
        c.fail("mask-requires-grad",
               f"the mask of {what} requires grad, so autograd treats it as differentiable (a loss that uses it "
               "would send a gradient into your backward). Call ctx.mark_non_differentiable(mask) in forward.")


def _at_bounds(dtype):
    """An x of `dtype` with points at lo and hi exactly, and lo, hi."""
    x = torch.tensor([-1.5, -0.5, -0.25, 0.0, 0.5, 0.75, 2.0], dtype=dtype, requires_grad=True)
    return x, -0.5, 0.75


def _clamp_mask_in(ClampWithMask, dtype) -> None:
    x, lo, hi = _at_bounds(dtype)
    what = f"ClampWithMask.apply(x, {lo}, {hi}) for a {dtype} x"
    _, mask = _clamp_outputs(ClampWithMask, x, lo, hi)
    _require_mask(mask, x, lo, hi, what)
    _require_not_differentiable(mask, what)


def _clamp_gradient_at_bounds(ClampWithMask) -> None:
    """The gradient of the clamped output: 1 inside, lo and hi included, 0 outside. Where the learner's own mask
    is wrong (a boundary point left out, a bound ignored), the mask's test judges that mistake, and a gradient that
    follows that mask is asked no more there (one mistake costs its own rule's points)."""
    x, lo, hi = _at_bounds(torch.float64)
    what = f"ClampWithMask.apply(x, {lo}, {hi})"
    y, mask = _clamp_outputs(ClampWithMask, x, lo, hi)
    (grad,) = grads_of(y, [x], what="ClampWithMask.backward")
    if grad is None:
        c.fail("no-gradient", "ClampWithMask gave x no gradient.")
    expected = _expected_mask(x, lo, hi)
    if tuple(mask.shape) == tuple(x.shape):
        own = mask.detach().to(expected.dtype)
        expected = torch.where(own != expected, own, expected)
    c.require_close(grad, expected, f"the gradient of {what}[0].sum(), boundary points included",
                    "wrong-derivative", CLAMP_HINT)


def _own_mask_is_wrong(ClampWithMask, x, lo, hi) -> bool:
    with torch.no_grad():
        _, mask = _clamp_outputs(ClampWithMask, x.detach(), lo, hi)
    expected = _expected_mask(x, lo, hi)
    return tuple(mask.shape) == tuple(x.shape) and not bool(torch.equal(mask.to(expected.dtype), expected))


# (seed, shape, lo, hi)
CLAMP_CASES = ((0, (6,), -0.5, 0.5),)
CLAMP_TABLE = tuple((seed, shape, lo, hi) for seed in (0, 1, 2)
                    for shape, lo, hi in (((6,), -0.5, 0.5), ((3, 4), -1.0, 0.2), ((2, 3, 4), 0.1, 1.2)))


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def clamp_gradcheck(ClampWithMask, cases=CLAMP_CASES) -> None:
    """float64 finite differences away from lo and hi for each (seed, shape, lo, hi) of `cases`, the gradient at
    lo and hi exactly, and None for lo, hi (crafted ctx)."""
    c.require_function(ClampWithMask, CLAMP)
    _clamp_gradient_at_bounds(ClampWithMask)
    _require_kept_guarded(ClampWithMask)
    def one_case(seed, shape, lo, hi) -> None:
        x = c.randn(*shape, seed=seed, away_from=(lo, hi), scale=1.5)
        if _own_mask_is_wrong(ClampWithMask, x, lo, hi):
            return  # a gradient that follows a wrong mask: the mask's rule (checked at lo and hi above)
        gradcheck(lambda t, a=lo, b=hi: ClampWithMask.apply(t, a, b)[0], (x,),
                  f"ClampWithMask on shape {shape} with lo={lo}, hi={hi}", hint=CLAMP_HINT,
                  reference=lambda t, a=lo, b=hi: t.clamp(a, b))
    c.each(cases, lambda case: one_case(*case))
    x = c.randn(2, 3, seed=cases[0][0] + 4)
    ctx = c.FakeCtx((True, False, False))
    with torch.no_grad():
        y, mask = call(ClampWithMask.forward, ctx, x, -0.5, 0.5, what="ClampWithMask.forward")
        grads = call(ClampWithMask.backward, ctx, torch.ones_like(y), torch.zeros_like(mask),
                      what="ClampWithMask.backward")
    if not isinstance(grads, (tuple, list)) or len(grads) != 3:
        c.fail("wrong-arity", "ClampWithMask.backward must return three values, one per forward input: the gradient "
                              "of x, then None for lo and None for hi.")
    if grads[1] is not None or grads[2] is not None:
        c.fail("missing-none", "ClampWithMask.backward returned a gradient for lo or hi, which are floats: return "
                               "None in those positions.")


def _require_kept_guarded(ClampWithMask) -> None:
    """x, then the mask, changed in place after forward: backward raises autograd's in-place error (what it needs
    kept with ctx.save_for_backward) or gives the gradient of the call left alone (common/kept_guarded.py). The
    statement's hint says to save the mask, and notebook 04 says how: a tensor the caller holds (an input, an output
    handed back) kept as a ctx attribute escapes the version counter."""
    x = torch.tensor([-1.5, -0.25, 0.0, 0.3, 0.75, 2.0], dtype=torch.float64)
    apply = lambda t: ClampWithMask.apply(t, -0.5, 0.5)  # noqa: E731
    with c.explained("ClampWithMask.apply(x, -0.5, 0.5)", (c.NOT_IMPLEMENTED,)):
        kept_guarded.require_kept_guarded(apply, [x], what="ClampWithMask.backward", kept="x")
        kept_guarded.require_kept_guarded(apply, [x], what="ClampWithMask.backward", kept="the mask",
                                          change=kept_guarded.change_output(1))
