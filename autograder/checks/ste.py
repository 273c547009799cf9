"""Checks for the straight-through estimators of notebook 06.

`RoundSTE.apply(x)`: forward `torch.round(x)`; backward passes `grad_output` through unchanged.
`SignSTE.apply(x)`:  forward `torch.sign(x)`;  backward `grad_output * (x.abs() <= 1)` (the clipped STE:
                     |x| == 1 exactly counts as inside).

`gradcheck` fails by design on an STE (finite differences see the flat steps of the staircase), so every
gradient check here compares with a hand-computed expectation, always with a random `grad_output`: a
backward that returns ones, or the mask alone, would pass a test that uses an all-ones grad_output.
"""

from __future__ import annotations

import math

import torch

from autograder.checks import behaviour
from autograder.checks import common as c


ROUND = "RoundSTE"
SIGN = "SignSTE"
SHAPES = [(7,), (3, 4), (2, 3, 4), ()]   # 0-dim last: a single number diagnoses least
DTYPES = (torch.float32, torch.float64)

# The breadth of each check is its `cases=`: the default is what the visible test runs, the tables below what
# the hidden tests run. A case is a seed, a (seed, shape) pair or a dtype, as each check says.
EXACT_CASES, EXACT_TABLE = (0,), (0, 1, 2)
BACKWARD_CASES = [(0, (7,))]
BACKWARD_TABLE = [(seed, shape) for seed in (0, 1, 2) for shape in SHAPES]
ROUND_DTYPE_CASES, ROUND_DTYPE_TABLE = (0,), (11, 21)
GRAPH_CASES, GRAPH_TABLE = (0,), (13, 23)
BOUNDARY_CASES, BOUNDARY_TABLE = (torch.float64,), DTYPES
SIGN_DTYPE_CASES, SIGN_DTYPE_TABLE = (torch.float32,), DTYPES


# ------------------------------------------------------------------------------------------- helpers

def _forward(Fn, name: str, x: torch.Tensor) -> torch.Tensor:
    y = c.call(Fn.apply, x, what=f"{name}.forward")
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"{name}.apply(x) should return a tensor, got {type(y).__name__}.")
    return y


def _random_grad(shape, seed: int, dtype) -> torch.Tensor:
    """A random grad_output (never all ones), bounded away from zero so a zeroed entry is visible."""
    g = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype, away_from=(0.0,), margin=0.1)
    return g


def _grad_via_autograd(Fn, name: str, x: torch.Tensor, grad_output: torch.Tensor, watch: bool = True) -> torch.Tensor:
    """d(Fn.apply(x))/dx weighted by grad_output, through the engine; also catches in-place edits of it (unless
    not `watch`: a test of another rule then hands backward a copy of its own)."""
    leaf = x.detach().clone().requires_grad_(True)
    y = _forward(Fn, name, leaf)
    if y.grad_fn is None:
        c.fail("no-graph", f"{name}.apply(x) returned a tensor that is not connected to x's graph "
                           f"(no grad_fn): call {name}.apply(x), and return the result of forward.")
    before = grad_output.clone()
    (grad,) = c.backward_grads(y, [leaf], grad_output, what=f"{name}.backward")
    if watch and not torch.equal(grad_output, before):
        c.fail("inplace-grad-output",
               f"{name}.backward changed grad_output in place (for example grad_output[mask] = 0). That "
               "tensor belongs to autograd and may be shared with other parts of the graph (after .sum() it "
               "is one number broadcast to every element, so one write zeroes them all): build a new tensor "
               "instead, e.g. grad_output * mask.")
    if grad is None:
        c.fail("no-gradient", f"{name}.backward returned None for x: return a gradient tensor for x.")
    return grad


def _direct_backward(Fn, name: str, x: torch.Tensor, grad_output: torch.Tensor):
    """Call forward and backward directly with a FakeCtx: what backward returns, before the engine
    converts dtypes or unwraps tuples for you."""
    ctx = c.FakeCtx((True,))
    x = x.detach()
    with torch.no_grad(), c.explained(name, (c.NOT_IMPLEMENTED,)):
        if c.uses_setup_context(Fn):
            y = Fn.forward(x)
            Fn.setup_context(ctx, (x,), y)
        else:
            y = Fn.forward(ctx, x)
        out = Fn.backward(ctx, grad_output)
    if isinstance(out, (tuple, list)):
        if len(out) != 1:
            c.fail("wrong-arity", f"{name}.backward returned {len(out)} values but forward takes 1 input (x): "
                                  "return exactly one gradient.")
        (out,) = out
    return y, out


def _backward_both(Fn, name: str, x: torch.Tensor, grad_output: torch.Tensor):
    """(what backward returned, how its feedback starts), twice: called directly with a stand-in ctx, then with the
    node autograd made for Fn.apply(x) as its ctx (`behaviour.backward_by_its_node`), which no answer can tell
    from real use. The second is left out when Fn.apply makes no node of its own (the engine tests say so)."""
    _, out = _direct_backward(Fn, name, x, grad_output)
    yield out, ""
    leaf = x.detach().clone().requires_grad_(True)
    real = behaviour.backward_by_its_node(Fn, (leaf,), grad_output, what=f"{name}.backward with autograd's own "
                                          "node as its ctx")
    if real is None:
        return
    lead = f"Called directly, {name}.backward returned what it should; but with the node autograd made as its ctx, "
    if len(real) != 1:
        c.fail("wrong-arity", f"{lead}it returned {len(real)} values but forward takes 1 input (x): return exactly "
                              "one gradient.")
    yield real[0], lead


def _first(x: torch.Tensor, mask: torch.Tensor) -> float:
    """The first value of x where mask is True (any shape, 0-dim included)."""
    flat = mask.reshape(-1).nonzero()
    return x.detach().reshape(-1)[int(flat[0])].item()


def _location(x: torch.Tensor, mask: torch.Tensor) -> str:
    return f"x = {_first(x, mask)!r}"


# ------------------------------------------------------------------------------------------ RoundSTE

def _require_round_forward(RoundSTE, x: torch.Tensor) -> None:
    y = _forward(RoundSTE, ROUND, x)
    c.require_shape(y, x.shape, f"{ROUND}.apply(x)")
    if y.dtype != x.dtype:
        c.fail("wrong-dtype", f"{ROUND}.apply(x) has dtype {y.dtype} but x has {x.dtype}: keep the input's dtype "
                              "(torch.round(x) does).")
    expected = torch.round(x.detach())
    if not torch.equal(y.detach(), expected):
        wrong = y.detach() != expected
        xd = x.detach()
        ties = (xd - torch.floor(xd)) == 0.5
        if bool((wrong & ~ties).any()):
            wrong = wrong & ~ties      # report a plain mistake before a tie-breaking one
        xv, got, want = _first(x, wrong), _first(y, wrong), _first(expected, wrong)
        if xv - math.floor(xv) == 0.5:
            c.fail("wrong-ties",
                   f"{ROUND}.apply(x) at the tie x = {xv} gave {got}, but torch.round gives {want}: torch.round "
                   "rounds halves to the nearest EVEN integer (0.5 -> 0, 1.5 -> 2, 2.5 -> 2). Use torch.round(x), "
                   "not floor(x + 0.5).")
        c.fail("wrong-forward", f"{ROUND}.apply(x) at x = {xv} gave {got}, expected {want}: forward must return "
                                "torch.round(x) exactly (not floor, ceil or trunc).")


def _require_pass_through(grad: torch.Tensor, x: torch.Tensor, g: torch.Tensor, what: str) -> None:
    c.require_shape(grad, x.shape, what)
    if torch.equal(grad.detach().to(g.dtype), g):
        return
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
    """Visible: forward equals torch.round (ties included) and the gradient is grad_output."""
    c.require_function(RoundSTE, ROUND)
    c.require_self_contained(RoundSTE, ROUND)
    x = torch.tensor([-1.7, -0.5, 0.2, 0.5, 1.5, 2.6], dtype=torch.float64)
    _require_round_forward(RoundSTE, x)
    g = torch.tensor([0.3, -1.2, 2.0, 0.7, -0.1, 1.1], dtype=torch.float64)
    grad = _grad_via_autograd(RoundSTE, ROUND, x, g)
    _require_pass_through(grad, x, g, f"the gradient of {ROUND}")


def round_forward_exact(RoundSTE, cases=EXACT_CASES) -> None:
    """Forward exactly equals torch.round: halves (round half to even), negatives, large values; random values
    for each seed of `cases` (EXACT_TABLE: three seeds)."""
    c.require_function(RoundSTE, ROUND)
    ties = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 100.5, 101.5]
    for dtype in DTYPES:
        _require_round_forward(RoundSTE, torch.tensor(ties, dtype=dtype))
        _require_round_forward(RoundSTE, torch.tensor([0.0, -0.0, 0.49, -0.49, 0.51, 1e6 + 0.25, -7.0], dtype=dtype))
        for seed in cases:
            for shape in SHAPES:
                _require_round_forward(RoundSTE, c.randn(*shape, seed=seed, dtype=dtype, requires_grad=False,
                                                         scale=4.0))
            halves = torch.floor(c.randn(20, seed=seed + 50, dtype=dtype, requires_grad=False, scale=10.0)) + 0.5
            _require_round_forward(RoundSTE, halves)


def round_backward(RoundSTE, cases=BACKWARD_CASES) -> None:
    """The gradient is exactly grad_output for random x (inside and far outside [-1, 1]) and random
    grad_output, for each (seed, shape) of `cases` (BACKWARD_TABLE: three seeds, every shape), through the
    engine and through a direct call of backward."""
    c.require_function(RoundSTE, ROUND)
    for seed, shape in cases:
        x = c.randn(*shape, seed=seed, scale=3.0, away_from=(-1.0, 1.0), requires_grad=False)
        g = _random_grad(shape, seed + 100, torch.float64)
        grad = _grad_via_autograd(RoundSTE, ROUND, x, g)
        _require_pass_through(grad, x, g, f"the gradient of {ROUND} on shape {shape}")
    x = c.randn(3, 4, seed=7, scale=3.0, requires_grad=False)
    g = _random_grad((3, 4), 8, torch.float64)
    for out, lead in _backward_both(RoundSTE, ROUND, x, g):
        if out is None:
            c.fail("no-gradient", f"{lead}{ROUND}.backward returned None for x: return grad_output.")
        said = f"{lead}what {ROUND}.backward returns" + ("" if lead else " (called directly)")
        _require_pass_through(out, x, g, said)
    # Inside a larger graph: d/dx of 3 * RoundSTE(2 x) is 6 (times grad_output) under the STE.
    leaf = c.randn(5, seed=9, scale=2.0)
    y = c.call(RoundSTE.apply, 2 * leaf, what=f"{ROUND}.forward")
    g = _random_grad((5,), 10, torch.float64)
    (grad,) = c.backward_grads(3 * y, [leaf], g, what=f"{ROUND}.backward")
    c.require_close(grad, 6 * g, f"the gradient of 3 * {ROUND}.apply(2 * x)", "wrong-ste-gradient",
                    "inside a larger graph the STE is the identity: the chain rule gives 3 * 2 * grad_output.")


def round_dtype(RoundSTE, cases=ROUND_DTYPE_CASES) -> None:
    """float32 stays float32 and float64 stays float64, in the output and in backward's result, for each seed
    of `cases`."""
    c.require_function(RoundSTE, ROUND)
    for dtype in DTYPES:
        for seed in cases:
            x = c.randn(6, seed=seed, dtype=dtype, requires_grad=False, scale=3.0)
            _require_round_forward(RoundSTE, x)
            for out, lead in _backward_both(RoundSTE, ROUND, x, _random_grad((6,), seed + 1, dtype)):
                if not isinstance(out, torch.Tensor):
                    c.fail("no-gradient", f"{lead}{ROUND}.backward returned {behaviour.type_name(out)}, not a "
                                          "tensor: return grad_output.")
                if out.dtype != dtype:
                    c.fail("wrong-dtype", f"{lead}for a {dtype} input, {ROUND}.backward returned a {out.dtype} "
                                          "gradient: the gradient must keep the input's dtype (return grad_output "
                                          "as it is).")


def round_graph(RoundSTE, cases=GRAPH_CASES) -> None:
    """RoundSTE.apply records RoundSTE's own node (so the STE backward is the one that runs), for each seed of
    `cases`."""
    c.require_function(RoundSTE, ROUND)
    for seed in cases:
        x = c.randn(4, seed=seed, scale=2.0)
        y = _forward(RoundSTE, ROUND, x)
        c.require_own_node(y, RoundSTE, ROUND)


# ------------------------------------------------------------------------------------------- SignSTE

def _require_sign_forward(SignSTE, x: torch.Tensor) -> None:
    y = _forward(SignSTE, SIGN, x)
    c.require_shape(y, x.shape, f"{SIGN}.apply(x)")
    if y.dtype != x.dtype:
        c.fail("wrong-dtype", f"{SIGN}.apply(x) has dtype {y.dtype} but x has {x.dtype}: keep the input's dtype "
                              "(torch.sign(x) does).")
    expected = torch.sign(x.detach())
    if not torch.equal(y.detach(), expected):
        wrong = y.detach() != expected
        xv, got, want = _first(x, wrong), _first(y, wrong), _first(expected, wrong)
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
               "straight-through estimator replaces. backward must return grad_output * (x.abs() <= 1).")
    if bool(torch.allclose(grad, g, rtol=1e-6, atol=1e-12)):
        c.fail("no-clipping",
               f"{what} is grad_output everywhere, also where |x| > 1: the clipped STE zeroes the gradient "
               "outside [-1, 1] (where sign has long saturated). Return grad_output * (x.abs() <= 1).")
    if bool(torch.allclose(grad, inside.to(g.dtype), rtol=1e-6, atol=1e-12)):
        c.fail("ignores-grad-output",
               f"{what} is the 0/1 mask itself: backward must multiply grad_output by the mask "
               "(grad_output * (x.abs() <= 1)), not return the mask.")
    if bool(torch.allclose(grad, x * inside, rtol=1e-6, atol=1e-12)):
        c.fail("ignores-grad-output",
               f"{what} is x times the mask: the mask multiplies grad_output, not x "
               "(return grad_output * (x.abs() <= 1)).")
    if bool(torch.allclose(grad, g * (g.abs() <= 1), rtol=1e-6, atol=1e-12)):
        c.fail("mask-from-grad-output",
               f"{what} is masked where |grad_output| > 1: the mask depends on the INPUT x "
               "(saved in forward), not on grad_output. Return grad_output * (x.abs() <= 1).")
    if bool(inside.any()) and bool(torch.allclose(grad, g * ~inside, rtol=1e-6, atol=1e-12)):
        c.fail("inverted-mask",
               f"{what} is zero inside [-1, 1] and grad_output outside: the mask is inverted (note that "
               "masked_fill(mask, 0) zeroes where mask is True). Return grad_output * (x.abs() <= 1).")
    strict = g * (x.abs() < 1)
    if bool(torch.allclose(grad, strict, rtol=1e-6, atol=1e-12)) and bool((x.abs() == 1).any()):
        point = _location(x, x.abs() == 1)
        c.fail("strict-boundary",
               f"{what} is zero at {point}: |x| == 1 exactly counts as inside [-1, 1], so the gradient passes "
               "there. Use x.abs() <= 1, not x.abs() < 1.")
    wrong = ~torch.isclose(grad, expected, rtol=1e-6, atol=1e-12)
    point = _location(x, wrong)
    if bool((wrong & (x == 0) & (grad == 0)).any()):
        c.fail("zero-at-zero",
               f"{what} is zero at x = 0: 0 is inside [-1, 1], so grad_output passes there. Build the mask "
               "from x.abs() <= 1 (not from sign(x), which is 0 there).")
    if bool((wrong & inside & (grad == 0)).any()):
        point = _location(x, wrong & inside & (grad == 0))
        c.fail("wrong-clip-mask",
               f"{what} is zero at {point}, which is inside [-1, 1]: there the gradient must be grad_output. "
               "Build the mask from x with x.abs() <= 1.")
    if bool((wrong & ~inside).any()):
        point = _location(x, wrong & ~inside)
        c.fail("wrong-clip-mask",
               f"{what} is not zero at {point}, which is outside [-1, 1]: there the clipped STE gradient is 0. "
               "Return grad_output * (x.abs() <= 1).")
    c.fail("wrong-ste-gradient",
           f"{what} is wrong at {point}: the clipped STE returns grad_output * (x.abs() <= 1).")


def sign_values(SignSTE) -> None:
    """Visible: forward equals torch.sign, and inside [-1, 1] the gradient is grad_output (the straight-through
    part; the clipping outside is sign_backward's rule, the boundary sign_boundary's: no point here is outside
    or on it, and no |grad_output| exceeds 1)."""
    c.require_function(SignSTE, SIGN)
    c.require_self_contained(SignSTE, SIGN)
    _require_sign_forward(SignSTE, torch.tensor([-2.0, -0.5, 0.0, 0.3, 0.9, 3.0], dtype=torch.float64))
    x = torch.tensor([-0.5, 0.0, 0.3, 0.9, -0.75], dtype=torch.float64)
    g = torch.tensor([0.3, -0.6, 0.8, 0.7, -0.4], dtype=torch.float64)
    grad = _grad_via_autograd(SignSTE, SIGN, x, g)
    _require_clipped(grad, x, g, f"the gradient of {SIGN} inside [-1, 1]")


def sign_forward_exact(SignSTE, cases=EXACT_CASES) -> None:
    """Forward exactly equals torch.sign, zeros included; random values for each seed of `cases`."""
    c.require_function(SignSTE, SIGN)
    for dtype in DTYPES:
        _require_sign_forward(SignSTE, torch.tensor([0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, 5.0], dtype=dtype))
        for seed in cases:
            for shape in SHAPES:
                _require_sign_forward(SignSTE, c.randn(*shape, seed=seed, dtype=dtype, requires_grad=False,
                                                       scale=2.0))


def sign_backward(SignSTE, cases=BACKWARD_CASES) -> None:
    """Random x (about half of it outside [-1, 1]) and random grad_output for each (seed, shape) of `cases`,
    against the hand-computed grad_output * (|x| <= 1); through the engine and through a direct call of
    backward."""
    c.require_function(SignSTE, SIGN)
    for seed, shape in cases:
        x = c.randn(*shape, seed=seed, scale=1.5, away_from=(-1.0, 1.0), requires_grad=False)
        g = _random_grad(shape, seed + 100, torch.float64)
        grad = _grad_via_autograd(SignSTE, SIGN, x, g)
        _require_clipped(grad, x, g, f"the gradient of {SIGN} on shape {shape}")
    # A grad_output larger than 1 in size, and x both inside and outside: separates mask-on-x from mask-on-g.
    x = torch.tensor([-3.0, -0.5, 0.25, 0.75, 2.0, -1.5], dtype=torch.float64)
    g = torch.tensor([2.5, -3.0, 0.5, 1.75, -0.25, 4.0], dtype=torch.float64)
    grad = _grad_via_autograd(SignSTE, SIGN, x, g)
    _require_clipped(grad, x, g, f"the gradient of {SIGN}")
    for out, lead in _backward_both(SignSTE, SIGN, x, g):
        if out is None:
            c.fail("no-gradient", f"{lead}{SIGN}.backward returned None for x: return grad_output * (x.abs() <= 1).")
        _require_clipped(out, x, g, f"{lead}what {SIGN}.backward returns" + ("" if lead else " (called directly)"))
    # After y.sum(): grad_output is one number broadcast to every element; an in-place edit corrupts all.
    leaf = torch.tensor([-2.0, 0.5, 3.0, -0.25], dtype=torch.float64, requires_grad=True)
    y = c.call(SignSTE.apply, leaf, what=f"{SIGN}.forward")
    (grad,) = c.backward_grads(y.sum(), [leaf], what=f"{SIGN}.backward")
    c.require_close(grad, torch.tensor([0.0, 1.0, 0.0, 1.0], dtype=torch.float64),
                    f"the gradient of {SIGN}.apply(x).sum()", "wrong-ste-gradient",
                    "expected grad_output * (x.abs() <= 1) = [0, 1, 0, 1]. If you wrote into grad_output in place "
                    "(grad_output[mask] = 0), build a new tensor instead: after .sum() grad_output is a single "
                    "number broadcast to every element.")


def sign_boundary(SignSTE, cases=BOUNDARY_CASES) -> None:
    """x = +-1 exactly is inside (gradient passes), +-1.0000001 is outside, 0 is inside, in each dtype of
    `cases`."""
    c.require_function(SignSTE, SIGN)
    for dtype in cases:
        x = torch.tensor([-1.0, 1.0, -1.0000001, 1.0000001, 0.0, -0.0, 0.5, 3.0], dtype=dtype)
        g = torch.tensor([0.7, -1.3, 2.1, -0.9, 1.7, -0.6, 0.4, 1.2], dtype=dtype)
        grad = _grad_via_autograd(SignSTE, SIGN, x, g.clone(), watch=False)  # writing into it: sign_backward's rule
        what = f"the gradient of {SIGN} at the boundary points (x in {dtype})"
        on = x.abs() == 1
        c.require_shape(grad, x.shape, what)
        gd = grad.detach().to(dtype)
        # The boundary is judged against the answer's own gradient elsewhere: whether grad_output passes inside
        # is sign_values' rule, whether it clips at all (as at 3.0) sign_backward's. So: where the gradient passes
        # strictly inside, it must pass at |x| == 1 too; where it is zero further out, also just outside.
        inner = x.abs() < 1
        if bool(torch.allclose(gd[inner], g[inner], rtol=1e-6, atol=1e-12)) \
                and not bool(torch.allclose(gd[on], g[on], rtol=1e-6, atol=1e-12)):
            if bool((gd[on] == 0).all()):
                c.fail("strict-boundary",
                       f"{what} is zero at {_location(x, on)}: |x| == 1 exactly counts as inside [-1, 1], so the "
                       "gradient passes there, as it does strictly inside.")
            _require_clipped(grad[on], x[on], g[on], what)
        just = (x.abs() > 1) & (x.abs() < 1.001)
        passes_inside = bool(torch.allclose(gd[inner], g[inner], rtol=1e-6, atol=1e-12))
        if passes_inside and bool((gd[x.abs() > 2] == 0).all()) and not bool((gd[just] == 0).all()):
            c.fail("wrong-clip-mask", f"{what} is not zero at {_location(x, just & (gd != 0))}, just outside [-1, 1], "
                                      "though it is zero further out: the boundary is |x| == 1 exactly.")


def sign_dtype(SignSTE, cases=SIGN_DTYPE_CASES) -> None:
    """Each dtype of `cases` is kept, in the output and in what backward returns (called directly: the engine
    would silently convert a float64 gradient for a float32 input)."""
    c.require_function(SignSTE, SIGN)
    for dtype in cases:
        x = torch.tensor([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], dtype=dtype)
        y = _forward(SignSTE, SIGN, x)
        if isinstance(y, torch.Tensor) and y.dtype != x.dtype:
            c.fail("wrong-dtype", f"{SIGN}.apply(x) has dtype {y.dtype} but x has {x.dtype}: keep the input's dtype "
                                  "(torch.sign(x) does).")
        g = torch.tensor([1.5, -0.5, 2.0, 0.25, -1.0, 0.75, 3.0], dtype=dtype)
        for out, lead in _backward_both(SignSTE, SIGN, x, g):
            if not isinstance(out, torch.Tensor):
                c.fail("no-gradient", f"{lead}{SIGN}.backward returned {behaviour.type_name(out)}, not a tensor: "
                                      "return grad_output * (x.abs() <= 1).")
            if out.dtype != dtype:
                hint = (" It returned the boolean mask: multiply grad_output by it." if out.dtype == torch.bool else
                        " Multiply grad_output by the boolean mask directly (x.abs() <= 1), or convert the mask "
                        "with .to(grad_output.dtype), not .double()/.float().")
                c.fail("wrong-dtype", f"{lead}for a {dtype} input, {SIGN}.backward returned a {out.dtype} gradient: "
                                      f"the gradient must have the input's dtype.{hint}")
            # its values are the other tests' rules


def sign_graph(SignSTE, cases=GRAPH_CASES) -> None:
    """SignSTE.apply records SignSTE's own node (so the clipped STE backward is the one that runs), for each
    seed of `cases`."""
    c.require_function(SignSTE, SIGN)
    for seed in cases:
        x = c.randn(4, seed=seed)
        y = _forward(SignSTE, SIGN, x)
        c.require_own_node(y, SignSTE, SIGN)
