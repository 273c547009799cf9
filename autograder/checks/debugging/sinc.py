"""Checks for notebook 15's `Sinc` (see `debugging`): `Sinc.apply(x)` = sin(x) / x, 1 at x = 0, with gradient
(x cos x - sin x) / x**2 and exactly 0 at x = 0. The broken one returns 0 / 0 = NaN there.

How accurate next to 0 (sinc_away, float64). The formula's two terms cancel, so even PyTorch's own answer (torch.sinc's
backward: the formula, masked to 0 where x == 0) loses digits as |x| shrinks. Its relative error against the series,
measured on 4000 |x| per decade (torch 2.13.0, CPU), what an eps e added to x**2 costs (e / (x**2 + e), at the
decade's smallest |x|), and what the check allows:

    |x| in        formula, max   formula, median   eps 1e-8   eps 1e-12   allowed (allowed_error)
    [1e-2, 1)     0 (*)          0 (*)             1e-4       1e-8        1e-6
    [1e-3, 1e-2)  4.1e-10        5.0e-12           1e-2       1e-6        1e-6
    [1e-4, 1e-3)  4.7e-8         4.5e-10           0.5        1e-4        1e-6
    [1e-5, 1e-4)  5.5e-6         4.8e-8            0.99       1e-2        1e-6 .. 7.1e-5
    [1e-6, 1e-5)  5.6e-4         4.9e-6            1          0.5         7.1e-5 .. 7.1e-3
    [1e-7, 1e-6)  4.7e-2         4.7e-4            1          0.99        7.1e-3 .. 0.71
    [1e-8, 1e-7)  3.2            5.0e-2            1          1           0.71 .. 71
    (*) the judge's reference is the formula itself there.

The formula's error follows one law, about k * eps64 / x**2 (eps64 = 2.2e-16), and so does an eps's: k is at most
3.5 for (x cos x - sin x) / x**2, 2.9 for (cos x - sin x / x) / x, 4.9 for cos x / x - sin x / x**2 and 4.4 for
torch.sinc's autograd (400 000 random |x| in [1e-8, 1]). The check allows k = 32 (NEAR_ROUNDING = 7.1e-15 / x**2,
never below NEAR_RTOL = 1e-6, which a first series term -x/3 below |x| = 1e-3 meets at 1e-7): every honest way of
writing the formula passes with a margin of 6.5, an eps e >= 1e-14 added to x**2 fails at every |x| in [1e-6, 1e-5]
(e = 1e-8: 1 % off at 1e-3), and a clamp of |x| up to c fails for c >= 1e-6 (at |x| in (7.1e-15 / c, c)). An eps of
1e-15 or 1e-20, or a clamp at 1e-8, changes the derivative less than the formula's own rounding: no point is lost
for it.
Down to |x| = 1e-12 (AWAY_CASES) the derivative must at least be finite; the zero rule (sinc_zero) wants exactly 0
at x = 0, in float32 and float64.
"""

from __future__ import annotations

import math

import torch

from autograder.checks import common as c
from autograder.checks.debugging.kept import OUTPUT, require_grad_output_alone, require_inputs_kept
from autograder.checks.debugging.shared import fmt, symptom_remains


SINC = "Sinc"
SINC_HINT = ("d/dx sin(x)/x = (x cos x - sin x) / x**2 for x != 0, and its limit at x = 0 is 0; sinc itself is 1 at "
             "0. Nothing is added to x and nothing is clamped: every x != 0, however small, gets its own derivative.")
ZERO_HINT = ("Where x is exactly 0 the derivative is its limit, 0: backward must select that value there (what it "
             "computes and does not return is never differentiated), not multiply a NaN by a mask, and keep the "
             "derivative everywhere else.")
NEAR_HINT = ("An eps added to x (or to x**2) or a clamp of |x| moves the derivative of every small x by more than "
             "the formula's own rounding: only x exactly 0 needs another value.")
# The relative error allowed at x != 0: max(NEAR_RTOL, NEAR_ROUNDING / x**2) (see the table above).
NEAR_ROUNDING = 32 * torch.finfo(torch.float64).eps   # 7.1e-15: 6.5 times the worst honest form's k
NEAR_RTOL = 1e-6
# (shape, dtype, seed, how many zeros): some entries set to exactly 0
ZERO_CASES = tuple((shape, torch.float32 if (k + seed) % 2 else torch.float64, 200 + 10 * seed + k, zeros)
                   for seed in (0, 1) for k, (shape, zeros) in enumerate((((6,), 1), ((3, 4), 3), ((), 1), ((2, 5), 10),
                                                                          ((7,), 2))))
# (values of x): float64, every |x| from 10 down to 1e-12 (where the formula is rounding noise), none exactly 0
AWAY_CASES = ((0.5, -1.5, 1e-3, -1e-5, 3e-8), (1e-3, -2e-3, 0.1, -0.3, 7e-4), (1e-2, 2.0, -4.0, 10.0, -3e-4),
              (-6.0, 2.5, 0.05, -0.02, 1e-4), (2e-5, -5e-6, 1e-6, -3e-7, 1e-7), (4e-8, -1e-8, 2.5e-8, -6e-8, 1.5e-7),
              (3e-5, -1.2e-5, 4e-3, 1e-9, -1e-12))


def allowed_error(x):
    """The relative error sinc_away accepts in the derivative at each x != 0 (float64)."""
    return torch.clamp(NEAR_ROUNDING / x.to(torch.float64) ** 2, min=NEAR_RTOL)


def _sinc_value_and_slope(x):
    """sinc and its derivative: the judge's exact series near 0 (autograder.references: judge-only); where that
    cannot be imported (the released course), torch's sinc differentiated by autograd, in float64."""
    try:
        from autograder.references.debugging import sinc_value_and_slope
    except (ImportError, OSError):
        leaf = x.detach().to(torch.float64).requires_grad_(True)
        with torch.enable_grad():
            value = torch.sinc(leaf / math.pi)
            (slope,) = torch.autograd.grad(value, leaf, torch.ones_like(value))
        return value.detach().to(x.dtype), slope.to(x.dtype)
    return sinc_value_and_slope(x)


def _zero_input(shape, dtype, seed, zeros):
    x = c.randn(*shape, seed=seed, requires_grad=False, away_from=(0.0,), margin=0.05, scale=3.0)
    flat = x.reshape(-1)
    flat[torch.arange(flat.numel()) < min(zeros, flat.numel())] = 0.0
    return x.to(dtype).requires_grad_(True)


def _tolerance(dtype):
    return (1e-9, 1e-12) if dtype == torch.float64 else (1e-4, 1e-5)


def sinc_zero(Sinc, cases=(((5,), torch.float64, 200, 2),)) -> None:
    """Inputs with exact zeros: value 1 there, gradient exactly 0 there (never NaN or inf), and about right elsewhere
    (to 1e-3: exactness away from 0 is `sinc_away`'s rule), with a random grad_output. Visible: float64;
    ZERO_CASES: float32 too, other shapes, every entry zero."""
    c.require_function(Sinc, SINC)
    c.require_self_contained(Sinc, SINC)
    def one_case(shape, dtype, seed, zeros) -> None:
        x = _zero_input(shape, dtype, seed, zeros)
        at = x.detach() == 0
        what = f"{SINC}.apply(x) for x of shape {fmt(x.shape)} ({str(dtype)[6:]}) with {int(at.sum())} zero(s)"
        y = c.call(Sinc.apply, x, what=what)
        value, slope = _sinc_value_and_slope(x)
        rtol, atol = _tolerance(dtype)
        c.require_close(y, value, what, "wrong-forward", "sinc is sin(x) / x, and 1 at x = 0.", rtol=rtol, atol=atol)
        g = c.randn(*shape, seed=seed + 1, requires_grad=False, dtype=dtype)
        # a copy of g: a backward that writes into grad_output is the away test's rule (debugging/kept.py)
        (grad,) = c.backward_grads(y, [x], g.clone(), what=f"{SINC}.backward")
        if grad is None:
            c.fail("no-graph", f"{what}: x received no gradient. Return the gradient from backward.")
        c.require_shape(grad, x.shape, f"the gradient of {what}", "wrong-grad-shape")
        if not bool(torch.isfinite(grad[at]).all()):
            c.fail("nan-at-zero", f"the gradient of {what} is {grad[at].tolist()[:3]} where x is exactly 0: one such "
                                  "NaN makes every weight NaN after the next optimizer step. " + ZERO_HINT)
        if not bool((grad[at] == 0).all()):
            c.fail("nonzero-at-zero", f"the gradient of {what} is {grad[at].tolist()[:3]} where x is exactly 0, but "
                                      "the derivative of sinc there is exactly 0 (sinc is even). " + ZERO_HINT)
        # Elsewhere only coarsely: the exact derivative away from 0 is the other test's rule (one mistake, one test).
        c.require_close(torch.where(at, 0.0, grad), torch.where(at, 0.0, g * slope),
                        f"the gradient of {what}, where x is not 0", "wrong-derivative", SINC_HINT,
                        rtol=1e-3, atol=1e-6)
    c.each(cases, lambda case: one_case(*case))


def sinc_away(Sinc, cases=AWAY_CASES[:1]) -> None:
    """Every x != 0, down to |x| = 1e-12, in float64: the value, and the derivative with a random grad_output to
    `allowed_error` of the true one (the judge's series near 0): what the formula's own rounding costs, so PyTorch's
    way (the formula, 0 where x == 0) passes and an eps or a clamp that changes the derivative more than that fails;
    finite everywhere. Then float64 gradcheck where finite differences can see the derivative (|x| >= 1e-3). The
    point counts once the report's symptom is gone (the broken Function keeps this rule: it is the formula)."""
    c.require_function(Sinc, SINC)
    def one_case(values) -> None:
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        what = f"{SINC}.apply(x) for x = {list(values)}"
        y = c.call(Sinc.apply, x, what=what)
        value, slope = _sinc_value_and_slope(x)
        c.require_close(y, value, what, "wrong-forward", "sinc is sin(x) / x: nothing is added to x, nothing clamped.",
                        rtol=1e-9, atol=1e-12)
        g = c.randn(len(values), seed=700 + len(values), requires_grad=False) + 2.0
        (grad,) = c.backward_grads(y, [x], g.clone(), what=f"{SINC}.backward")
        if grad is None:
            c.fail("no-graph", f"{what}: x received no gradient. Return the gradient from backward.")
        c.require_shape(grad, x.shape, f"the gradient of {what}", "wrong-grad-shape")
        expected = g * slope
        allowed = allowed_error(x.detach())
        error = ((grad - expected).abs() / expected.abs()).nan_to_num(nan=float("inf"))
        if not bool((error <= allowed).all()):
            worst = int((error / allowed).argmax())
            c.fail("inexact-near-zero",
                   f"the gradient of {what} is off by a relative {error[worst].item():.2g} at x = {values[worst]:g}, "
                   f"where rounding alone explains {allowed[worst].item():.2g} at most (float64). {SINC_HINT} "
                   f"{NEAR_HINT}")
        wide = [v for v in values if abs(v) >= 1e-3]
        if wide:
            c.gradcheck(Sinc.apply, (torch.tensor(wide, dtype=torch.float64, requires_grad=True),),
                        f"{SINC}.apply(x) for x = {wide}", hint=SINC_HINT)
    c.each(cases, one_case)
    # what else the broken Function keeps (debugging/kept.py): x kept where the version counter guards it,
    # grad_output left alone
    away = lambda seed: [c.randn(5, seed=seed, away_from=(0.0,), margin=0.3)]
    require_inputs_kept(Sinc, SINC, away(720), {"x": 0, "the output": OUTPUT})
    require_grad_output_alone(Sinc, SINC, lambda: [away(721), away(722)])
    sinc_symptom_gone(Sinc)   # the broken Function already keeps this rule: its point stands for the fix


def sinc_symptom_gone(Sinc) -> None:
    """The report's case (a padded zero): the gradient where x is exactly 0 is finite."""
    x = torch.tensor([0.5, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = c.call(Sinc.apply, x, what=f"{SINC}.apply(x)")
    (grad,) = c.backward_grads(y, [x], torch.ones_like(y), what=f"{SINC}.backward")
    if not isinstance(grad, torch.Tensor) or not bool(torch.isfinite(grad).all()):
        symptom_remains(SINC, "the gradient where x is exactly 0 is still not a number")
