"""Checks for notebook 06's `SignSTE` (see `ste`): `SignSTE.apply(x)` is `torch.sign(x)` forward; backward is
`grad_output * (x.abs() <= 1)` (the clipped STE: |x| == 1 exactly counts as inside). Every gradient is compared
with that expectation under a random `grad_output` (gradcheck fails by design on an STE).
"""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.ste.shared import (
    BACKWARD_CASES, DTYPES, EXACT_CASES, GRAPH_CASES, SHAPES, backward_both, first_where, forward_of, grad_via_autograd,
    location_of, random_grad,
)


SIGN = "SignSTE"
BOUNDARY_CASES, BOUNDARY_TABLE = (torch.float64,), DTYPES
# bfloat16: a mask made float32 (.float()) keeps a float32 or float64 gradient's dtype, not a half-precision one's.
SIGN_DTYPE_CASES, SIGN_DTYPE_TABLE = (torch.float32,), DTYPES + (torch.bfloat16,)


def _require_sign_forward(SignSTE, x: torch.Tensor) -> None:
    """The signs (their dtype is sign_dtype's rule: they are compared in x's dtype)."""
    y = forward_of(SignSTE, SIGN, x)
    c.require_shape(y, x.shape, f"{SIGN}.apply(x)")
    expected = torch.sign(x.detach())
    y = y.detach().to(x.dtype)
    if not torch.equal(y, expected):
        wrong = y != expected
        xv, got, want = first_where(x, wrong), first_where(y, wrong), first_where(expected, wrong)
        if xv == 0:
            c.fail("wrong-sign-at-zero", f"{SIGN}.apply(x) at x = 0 gave {got}, but sign(0) is 0: use torch.sign(x) "
                                         "(a comparison like x >= 0 maps 0 to +1).")
        c.fail("wrong-forward", f"{SIGN}.apply(x) at x = {xv} gave {got}, expected {want}: forward must return "
                                "torch.sign(x).")


def _require_clipped(grad: torch.Tensor, x: torch.Tensor, g: torch.Tensor, what: str) -> None:
    c.require_shape(grad, x.shape, what)
    x = x.detach()
    inside = x.abs() <= 1
    expected = g * inside
    grad = grad.detach().to(g.dtype)
    if bool(torch.allclose(grad, expected, rtol=1e-6, atol=1e-12)):
        return
    if not bool(grad.ne(0).any()) and bool(inside.any()):
        c.fail("zero-gradient",
               f"{what} is zero everywhere: that is sign's true derivative, which is exactly what the "
               "straight-through estimator replaces. backward must pass grad_output where |x| <= 1 and 0 elsewhere.")
    if bool(torch.allclose(grad, g, rtol=1e-6, atol=1e-12)):
        c.fail("no-clipping",
               f"{what} is grad_output everywhere, also where |x| > 1: the clipped STE zeroes the gradient "
               "outside [-1, 1] (where sign has long saturated). Pass grad_output where |x| <= 1, 0 elsewhere.")
    if bool(torch.allclose(grad, inside.to(g.dtype), rtol=1e-6, atol=1e-12)):
        c.fail("ignores-grad-output",
               f"{what} is the 0/1 mask itself: backward must multiply grad_output by the mask "
               "(the mask of |x| <= 1), not return the mask.")
    if bool(torch.allclose(grad, x * inside, rtol=1e-6, atol=1e-12)):
        c.fail("ignores-grad-output",
               f"{what} is x times the mask: the mask multiplies grad_output, not x "
               "(grad_output where |x| <= 1, 0 elsewhere).")
    if bool(torch.allclose(grad, g * (g.abs() <= 1), rtol=1e-6, atol=1e-12)):
        c.fail("mask-from-grad-output",
               f"{what} is masked where |grad_output| > 1: the mask depends on the INPUT x "
               "(saved in forward), not on grad_output. Pass grad_output where |x| <= 1, 0 elsewhere.")
    if bool(inside.any()) and bool(torch.allclose(grad, g * ~inside, rtol=1e-6, atol=1e-12)):
        c.fail("inverted-mask",
               f"{what} is zero inside [-1, 1] and grad_output outside: the mask is inverted (note that "
               "masked_fill(mask, 0) zeroes where mask is True). Pass grad_output where |x| <= 1, 0 elsewhere.")
    strict = g * (x.abs() < 1)
    if bool(torch.allclose(grad, strict, rtol=1e-6, atol=1e-12)) and bool((x.abs() == 1).any()):
        point = location_of(x, x.abs() == 1)
        c.fail("strict-boundary",
               f"{what} is zero at {point}: |x| == 1 exactly counts as inside [-1, 1], so the gradient passes "
               "there. Use x.abs() <= 1, not x.abs() < 1.")
    wrong = ~torch.isclose(grad, expected, rtol=1e-6, atol=1e-12)
    point = location_of(x, wrong)
    if bool((wrong & (x == 0) & (grad == 0)).any()):
        c.fail("zero-at-zero",
               f"{what} is zero at x = 0: 0 is inside [-1, 1], so grad_output passes there. Build the mask "
               "from x.abs() <= 1 (not from sign(x), which is 0 there).")
    if bool((wrong & inside & (grad == 0)).any()):
        point = location_of(x, wrong & inside & (grad == 0))
        c.fail("wrong-clip-mask",
               f"{what} is zero at {point}, which is inside [-1, 1]: there the gradient must be grad_output. "
               "Build the mask from x with x.abs() <= 1.")
    if bool((wrong & ~inside).any()):
        point = location_of(x, wrong & ~inside)
        c.fail("wrong-clip-mask",
               f"{what} is not zero at {point}, which is outside [-1, 1]: there the clipped STE gradient is 0. "
               "Pass grad_output where |x| <= 1, 0 elsewhere.")
    c.fail("wrong-ste-gradient",
           f"{what} is wrong at {point}: the clipped STE passes grad_output where |x| <= 1 and 0 elsewhere.")


def sign_values(SignSTE) -> None:
    """Visible: forward equals torch.sign, sign(0) = 0 included. The gradient is sign_backward's rule (the
    boundary sign_boundary's, the dtype sign_dtype's)."""
    c.require_function(SignSTE, SIGN)
    c.require_self_contained(SignSTE, SIGN)
    _require_sign_forward(SignSTE, torch.tensor([-2.0, -0.5, 0.0, 0.3, 0.9, 3.0], dtype=torch.float64))


def sign_forward_exact(SignSTE, cases=EXACT_CASES) -> None:
    """Forward exactly equals torch.sign, zeros included; random values for each seed of `cases`."""
    c.require_function(SignSTE, SIGN)
    for dtype in DTYPES:
        _require_sign_forward(SignSTE, torch.tensor([0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, 5.0], dtype=dtype))
        for seed in cases:
            for shape in SHAPES:
                _require_sign_forward(SignSTE, c.randn(*shape, seed=seed, dtype=dtype, requires_grad=False,
                                                       scale=2.0))


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def sign_backward(SignSTE, cases=BACKWARD_CASES) -> None:
    """Random x (about half of it outside [-1, 1]) and random grad_output for each (seed, shape) of `cases`,
    against the hand-computed grad_output * (|x| <= 1); through the engine and through a direct call of
    backward."""
    c.require_function(SignSTE, SIGN)
    def one_case(seed, shape) -> None:
        x = c.randn(*shape, seed=seed, scale=1.5, away_from=(-1.0, 1.0), requires_grad=False)
        g = random_grad(shape, seed + 100, torch.float64)
        grad = grad_via_autograd(SignSTE, SIGN, x, g)
        _require_clipped(grad, x, g, f"the gradient of {SIGN} on shape {shape}")
    c.each(cases, lambda case: one_case(*case))
    # A grad_output larger than 1 in size, and x both inside and outside: separates mask-on-x from mask-on-g.
    x = torch.tensor([-3.0, -0.5, 0.25, 0.75, 2.0, -1.5], dtype=torch.float64)
    g = torch.tensor([2.5, -3.0, 0.5, 1.75, -0.25, 4.0], dtype=torch.float64)
    grad = grad_via_autograd(SignSTE, SIGN, x, g)
    _require_clipped(grad, x, g, f"the gradient of {SIGN}")
    for out, lead in backward_both(SignSTE, SIGN, x, g):
        if out is None:
            c.fail("no-gradient", f"{lead}{SIGN}.backward returned None for x: grad_output where |x| <= 1, 0 elsewhere.")
        _require_clipped(out, x, g, f"{lead}what {SIGN}.backward returns" + ("" if lead else " (called directly)"))
    # After y.sum(): grad_output is one number broadcast to every element; an in-place edit corrupts all.
    leaf = torch.tensor([-2.0, 0.5, 3.0, -0.25], dtype=torch.float64, requires_grad=True)
    require_grad_output_kept(lambda: [(SignSTE.apply(t), [t]) for t in (c.randn(6, seed=163, scale=1.5),)],
                             f"the gradient of {SIGN}.apply(x).sum()", SIGN)
    y = c.call(SignSTE.apply, leaf, what=f"{SIGN}.forward")
    (grad,) = c.backward_grads(y.sum(), [leaf], what=f"{SIGN}.backward")
    c.require_close(grad, torch.tensor([0.0, 1.0, 0.0, 1.0], dtype=torch.float64),
                    f"the gradient of {SIGN}.apply(x).sum()", "wrong-ste-gradient",
                    "expected grad_output where |x| <= 1, 0 elsewhere: [0, 1, 0, 1]. If you wrote into grad_output in place "
                    "(grad_output[mask] = 0), build a new tensor instead: after .sum() grad_output is a single "
                    "number broadcast to every element.")
    # x changed in place after forward: backward raises autograd's in-place error (x saved with
    # ctx.save_for_backward) or gives the gradient of x left alone (a mask of its own kept on ctx is fine).
    with c.explained(f"{SIGN}.apply(x)", (c.NOT_IMPLEMENTED,)):
        kept_guarded.require_kept_guarded(SignSTE.apply, [torch.tensor([-2.0, -0.5, 0.25, 0.75, 1.5],
                                                                       dtype=torch.float64)],
                                          what=f"{SIGN}.backward", kept="x")


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def sign_boundary(SignSTE, cases=BOUNDARY_CASES) -> None:
    """x = +-1 exactly is inside (gradient passes), +-1.0000001 is outside, 0 is inside, in each dtype of
    `cases`."""
    c.require_function(SignSTE, SIGN)
    def one_case(dtype) -> None:
        # ... and +-0.9999999, just inside: a mask clipping elsewhere (at 0.5, say) is sign_backward's to judge.
        # ... and +-(1 + 1e-12), outside in float64 (a mask built from a float32 copy of x puts them on the boundary)
        x = torch.tensor([-1.0, 1.0, -1.0000001, 1.0000001, 0.0, -0.0, 0.5, 3.0, -0.9999999, 0.9999999,
                          1.000000000001, -1.000000000001], dtype=dtype)
        g = torch.tensor([0.7, -1.3, 2.1, -0.9, 1.7, -0.6, 0.4, 1.2, 0.8, -1.1, 0.9, -1.4], dtype=dtype)
        grad = grad_via_autograd(SignSTE, SIGN, x, g.clone(), watch=False)  # writing into it: sign_backward's rule
        what = f"the gradient of {SIGN} at the boundary points (x in {dtype})"
        on = x.abs() == 1
        c.require_shape(grad, x.shape, what)
        gd = grad.detach().to(dtype)
        # The boundary is judged against the answer's own gradient elsewhere: whether grad_output passes inside,
        # and whether it clips at all (as at 3.0), are sign_backward's rule. So: where the gradient passes
        # strictly inside, it must pass at |x| == 1 too; where it is zero further out, also just outside.
        inner = x.abs() < 1
        if bool(torch.allclose(gd[inner], g[inner], rtol=1e-6, atol=1e-12)) \
                and not bool(torch.allclose(gd[on], g[on], rtol=1e-6, atol=1e-12)):
            if bool((gd[on] == 0).all()):
                c.fail("strict-boundary",
                       f"{what} is zero at {location_of(x, on)}: |x| == 1 exactly counts as inside [-1, 1], so the "
                       "gradient passes there, as it does strictly inside.")
            _require_clipped(grad[on], x[on], g[on], what)
        just = (x.abs() > 1) & (x.abs() < 1.001)
        passes_inside = bool(torch.allclose(gd[inner], g[inner], rtol=1e-6, atol=1e-12))
        if passes_inside and bool((gd[x.abs() > 2] == 0).all()) and not bool((gd[just] == 0).all()):
            c.fail("wrong-clip-mask", f"{what} is not zero at {location_of(x, just & (gd != 0))}, just outside [-1, 1], "
                                      "though it is zero further out: the boundary is |x| == 1 exactly.")
    c.each(cases, one_case)


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def sign_dtype(SignSTE, cases=SIGN_DTYPE_CASES) -> None:
    """Each dtype of `cases` is kept, in the output and in what backward returns (called directly: the engine
    would silently convert a float64 gradient for a float32 input)."""
    c.require_function(SignSTE, SIGN)
    def one_case(dtype) -> None:
        x = torch.tensor([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], dtype=dtype)
        y = forward_of(SignSTE, SIGN, x)
        if isinstance(y, torch.Tensor) and y.dtype != x.dtype:
            c.fail("wrong-dtype", f"{SIGN}.apply(x) has dtype {y.dtype} but x has {x.dtype}: keep the input's dtype "
                                  "(torch.sign(x) does).")
        g = torch.tensor([1.5, -0.5, 2.0, 0.25, -1.0, 0.75, 3.0], dtype=dtype)
        for out, lead in backward_both(SignSTE, SIGN, x, g):
            if not isinstance(out, torch.Tensor):
                c.fail("no-gradient", f"{lead}{SIGN}.backward returned {behaviour.type_name(out)}, not a tensor: "
                                      "grad_output where |x| <= 1, 0 elsewhere.")
            if out.dtype != dtype:
                hint = (" It returned the boolean mask: multiply grad_output by it." if out.dtype == torch.bool else
                        " Multiply grad_output by the boolean mask directly (x.abs() <= 1), or convert the mask "
                        "with .to(grad_output.dtype), not .double()/.float().")
                c.fail("wrong-dtype", f"{lead}for a {dtype} input, {SIGN}.backward returned a {out.dtype} gradient: "
                                      f"the gradient must have the input's dtype.{hint}")
            # its values are the other tests' rules
    c.each(cases, one_case)


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def sign_graph(SignSTE, cases=GRAPH_CASES) -> None:
    """SignSTE.apply records SignSTE's own node (so the clipped STE backward is the one that runs), for each
    seed of `cases`."""
    c.require_function(SignSTE, SIGN)
    def one_case(seed) -> None:
        x = c.randn(4, seed=seed)
        y = forward_of(SignSTE, SIGN, x)
        c.require_own_node(y, SignSTE, SIGN)
    c.each(cases, one_case)
