"""Checks for notebook 06's `RoundSTE` (see `ste`): `RoundSTE.apply(x)` is `torch.round(x)` forward; backward
passes `grad_output` through unchanged. Every gradient is compared with that expectation under a random
`grad_output` (gradcheck fails by design on an STE).
"""

from __future__ import annotations

import math

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.ste.shared import (
    BACKWARD_CASES, DTYPES, EXACT_CASES, GRAPH_CASES, SHAPES, backward_both, first_where, forward_of, grad_via_autograd,
    random_grad,
)


ROUND = "RoundSTE"
ROUND_DTYPE_CASES, ROUND_DTYPE_TABLE = (0,), (11, 21)


def _require_round_forward(RoundSTE, x: torch.Tensor) -> None:
    """The rounded values (its dtype is round_dtype's rule: they are compared in x's dtype)."""
    y = forward_of(RoundSTE, ROUND, x)
    c.require_shape(y, x.shape, f"{ROUND}.apply(x)")
    expected = torch.round(x.detach())
    if y.dtype != x.dtype and y.is_floating_point():  # another dtype is round_dtype's rule: compared through it
        expected = expected.to(y.dtype).to(x.dtype)
    y = y.detach().to(x.dtype)
    if not torch.equal(y, expected):
        wrong = y != expected
        xd = x.detach()
        ties = (xd - torch.floor(xd)) == 0.5
        if bool((wrong & ~ties).any()):
            wrong = wrong & ~ties      # report a plain mistake before a tie-breaking one
        xv, got, want = first_where(x, wrong), first_where(y, wrong), first_where(expected, wrong)
        if x.dtype == torch.float64 and torch.equal(y, torch.round(xd.float()).to(x.dtype)):
            c.fail("wrong-forward", f"{ROUND}.apply(x) at the float64 x = {xv!r} gave {got}, expected {want}: that is "
                                    "the rounding of x converted to float32, where x lands on a half or loses its "
                                    "last digits. Round x in its own dtype.")
        if xv - math.floor(xv) == 0.5:
            c.fail("wrong-ties",
                   f"{ROUND}.apply(x) at the tie x = {xv} gave {got}, but torch.round gives {want}: torch.round "
                   "rounds halves to the nearest EVEN integer (0.5 -> 0, 1.5 -> 2, 2.5 -> 2). Use torch.round(x), "
                   "not floor(x + 0.5).")
        c.fail("wrong-forward", f"{ROUND}.apply(x) at x = {xv} gave {got}, expected {want}: forward must round "
                                "exactly as torch.round does, halves to even (not floor, ceil or trunc).")


def _require_pass_through(grad: torch.Tensor, x: torch.Tensor, g: torch.Tensor, what: str) -> None:
    c.require_shape(grad, x.shape, what)
    if torch.equal(grad.detach().to(g.dtype), g):
        return
    if g.dtype == torch.float64 and torch.equal(grad.detach().to(g.dtype), g.float().to(g.dtype)):
        return      # grad_output passed through float32 (in backward or in forward's output): round_dtype's rule
    grad = grad.detach().to(g.dtype)
    inside = x.detach().abs() <= 1
    if torch.equal(grad, g * inside) and bool(inside.any()) and not bool(inside.all()):
        c.fail("clipped-round",
               f"{what} is zero where |x| > 1: RoundSTE passes grad_output unchanged everywhere. Clipping to "
               "[-1, 1] is the rule of the other estimator, SignSTE.")
    if not bool(grad.ne(0).any()):
        c.fail("zero-gradient",
               f"{what} is zero everywhere: that is round's true derivative, which is exactly what a "
               "straight-through estimator replaces. backward must return grad_output unchanged.")
    if torch.equal(grad, torch.ones_like(g)):
        c.fail("ignores-grad-output",
               f"{what} is all ones, whatever grad_output is: backward receives dLoss/dy and must pass it on "
               "unchanged (return grad_output), not a constant.")
    if torch.equal(grad, g * inside) and not bool(inside.all()):
        c.fail("clipped-round",
               f"{what} is zero where |x| > 1: RoundSTE passes grad_output unchanged everywhere. Clipping to "
               "[-1, 1] is the rule of the other estimator, SignSTE.")
    if bool(torch.allclose(grad, g, rtol=1e-3, atol=1e-3)):
        c.fail("inexact-pass-through",
               f"{what} is close to grad_output but not equal to it: return grad_output itself, unchanged "
               "(no conversion, no arithmetic).")
    c.fail("wrong-ste-gradient",
           f"{what} is not grad_output: a straight-through estimator passes grad_output through unchanged "
           "(backward returns grad_output).")


def round_values(RoundSTE) -> None:
    """Visible: forward equals torch.round (ties included). The gradient is round_backward's rule, the dtype
    round_dtype's."""
    c.require_function(RoundSTE, ROUND)
    c.require_self_contained(RoundSTE, ROUND)
    _require_round_forward(RoundSTE, torch.tensor([-1.7, -0.5, 0.2, 0.5, 1.5, 2.6], dtype=torch.float64))


def round_forward_exact(RoundSTE, cases=EXACT_CASES) -> None:
    """Forward exactly equals torch.round: halves (round half to even), negatives, large values; random values
    for each seed of `cases` (EXACT_TABLE: three seeds)."""
    c.require_function(RoundSTE, ROUND)
    ties = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 100.5, 101.5]
    for dtype in DTYPES:
        _require_round_forward(RoundSTE, torch.tensor(ties, dtype=dtype))
        _require_round_forward(RoundSTE, torch.tensor([0.0, -0.0, 0.49, -0.49, 0.51, 1e6 + 0.25, -7.0], dtype=dtype))
        # float64 values that a float32 copy would move onto a half, or past their last digit
        _require_round_forward(RoundSTE, torch.tensor([2.5000000001, -1.4999999999, 16777217.0, 0.4999999999],
                                                      dtype=dtype))
        for seed in cases:
            for shape in SHAPES:
                _require_round_forward(RoundSTE, c.randn(*shape, seed=seed, dtype=dtype, requires_grad=False,
                                                         scale=4.0))
            halves = torch.floor(c.randn(20, seed=seed + 50, dtype=dtype, requires_grad=False, scale=10.0)) + 0.5
            _require_round_forward(RoundSTE, halves)


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def round_backward(RoundSTE, cases=BACKWARD_CASES) -> None:
    """The gradient is exactly grad_output for random x (inside and far outside [-1, 1]) and random
    grad_output, for each (seed, shape) of `cases` (BACKWARD_TABLE: three seeds, every shape), through the
    engine and through a direct call of backward."""
    c.require_function(RoundSTE, ROUND)
    # Through y.sum(), as losses are made: grad_output is one number broadcast, which backward must not write into
    # (autograd refuses the write there); the cases below give backward grad_outputs of their own, and name any
    # other mistake met here.
    leaf = c.randn(4, seed=11, scale=2.0)
    try:
        y = forward_of(RoundSTE, ROUND, leaf)
        if y.grad_fn is not None:
            c.backward_grads(y.sum(), [leaf], what=f"{ROUND}.backward")
    except c.Mistake as failed:
        if failed.code == "inplace-grad-output":
            raise
    except RuntimeError:
        pass
    def one_case(seed, shape) -> None:
        x = c.randn(*shape, seed=seed, scale=3.0, away_from=(-1.0, 1.0), requires_grad=False)
        g = random_grad(shape, seed + 100, torch.float64)
        grad = grad_via_autograd(RoundSTE, ROUND, x, g)
        _require_pass_through(grad, x, g, f"the gradient of {ROUND} on shape {shape}")
    c.each(cases, lambda case: one_case(*case))
    x = c.randn(3, 4, seed=7, scale=3.0, requires_grad=False)
    g = random_grad((3, 4), 8, torch.float64)
    for out, lead in backward_both(RoundSTE, ROUND, x, g):
        if out is None:
            c.fail("no-gradient", f"{lead}{ROUND}.backward returned None for x: return grad_output.")
        said = f"{lead}what {ROUND}.backward returns" + ("" if lead else " (called directly)")
        _require_pass_through(out, x, g, said)
    # Inside a larger graph: d/dx of 3 * RoundSTE(2 x) is 6 (times grad_output) under the STE.
    leaf = c.randn(5, seed=9, scale=2.0)
    y = c.call(RoundSTE.apply, 2 * leaf, what=f"{ROUND}.forward")
    g = random_grad((5,), 10, torch.float64)
    (grad,) = c.backward_grads(3 * y, [leaf], g, what=f"{ROUND}.backward")
    c.require_close(grad, 6 * g, f"the gradient of 3 * {ROUND}.apply(2 * x)", "wrong-ste-gradient",
                    "inside a larger graph the STE is the identity: the chain rule gives 3 * 2 * grad_output.")


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def round_dtype(RoundSTE, cases=ROUND_DTYPE_CASES) -> None:
    """float32 stays float32 and float64 stays float64, in the output and in backward's result, for each seed
    of `cases` (their values are the other tests' rules)."""
    c.require_function(RoundSTE, ROUND)
    for dtype in DTYPES + (torch.bfloat16,):  # a half-precision x shows a float32 factor (float64 hides it)
        for seed in cases:
            x = c.randn(6, seed=seed, dtype=dtype, requires_grad=False, scale=3.0)
            y = forward_of(RoundSTE, ROUND, x)
            if y.dtype != x.dtype:
                c.fail("wrong-dtype", f"{ROUND}.apply(x) has dtype {y.dtype} but x has {x.dtype}: keep the input's "
                                      "dtype (torch.round(x) does).")
            for out, lead in backward_both(RoundSTE, ROUND, x, random_grad((6,), seed + 1, dtype)):
                if not isinstance(out, torch.Tensor):
                    c.fail("no-gradient", f"{lead}{ROUND}.backward returned {behaviour.type_name(out)}, not a "
                                          "tensor: return grad_output.")
                if out.dtype != dtype:
                    c.fail("wrong-dtype", f"{lead}for a {dtype} input, {ROUND}.backward returned a {out.dtype} "
                                          "gradient: the gradient must keep the input's dtype (return grad_output "
                                          "as it is).")


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def round_graph(RoundSTE, cases=GRAPH_CASES) -> None:
    """RoundSTE.apply records RoundSTE's own node (so the STE backward is the one that runs), for each seed of
    `cases`."""
    c.require_function(RoundSTE, ROUND)
    def one_case(seed) -> None:
        x = c.randn(4, seed=seed, scale=2.0)
        y = forward_of(RoundSTE, ROUND, x)
        c.require_own_node(y, RoundSTE, ROUND)
    c.each(cases, one_case)
