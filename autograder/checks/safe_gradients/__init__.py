"""Checks for notebook 13 (safe gradients): `SafeNorm.apply(x)`.

Contract: SafeNorm.apply(x) = x.norm(dim=-1), the Euclidean norm over the last dimension, for x of shape (..., D)
(any leading shape, none included), float32 or float64, in x's dtype; exactly 0 for a zero row. Its gradient is
grad_output[..., None] * x / norm where the norm is positive and exactly 0 where the norm is 0, never nan or inf,
for any number of zero rows. Rows with a small but positive norm (the checks go down to 1e-6, and 1e-9 in float64)
get the exact unit vector: an eps added to the norm changes them. Below 1e-12 a clamped denominator (as F.normalize
has) is accepted: no check goes there. Backward leaves the tensors it saved as they were (the saved norm is the
caller's output).

Dtype and precision belong to the derivative rule (values, gradcheck: against the float64 reference); the zero and
short rows' tests compare the answer with itself (rows of ones, rows scaled by a power of 2), so a float32 somewhere
costs that rule only.

Second derivatives are not part of the contract, so nothing here grades them: at a zero row the norm's curvature is
unbounded (its Hessian is (I - u u^T) / norm), no value there is right, and sound answers differ there (nan, 0, or
grad_output * I), as the notebook shows.

Each check takes `cases=` (default: the visible test's fixed case; the hidden tests pass the *_CASES tables). The
trusted reference is the formula above, in float64 (torch.linalg.vector_norm's own backward agrees). Nothing is
asked of the learner's process: values and gradients are computed in the judge, and an in-place change to a saved
tensor is observed on the judge's side by calling forward and backward directly with a stand-in ctx.
"""

from __future__ import annotations

import math

import torch

from autograder.checks import common as c
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.explain import Rule, literal
from autograder.checks.safe_gradients.eps import eps_added_to_norm
from autograder.checks.safe_gradients.saved import check_kept_guarded, check_saved_unchanged
from autograder.checks.safe_gradients.rows import batch_or_rows, judged_shape
from autograder.checks.safe_gradients.short_rows import biased_short_row


NAME = "SafeNorm"
GRAD_HINT = ("The gradient of the norm is the unit vector x / norm, exactly (nothing added to the norm), times "
             "grad_output unsqueezed at the last dimension: grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1).")
ZERO_HINT = ("Keep x / norm where the norm is positive and put exactly 0 where it is 0, for example "
             "torch.where(norm > 0, x / norm, 0.0) with the norm unsqueezed at -1: inside backward the nan of 0 / 0 "
             "is computed but never selected, because nothing differentiates through that where.")
EXPAND_HINT = ("grad_output has the output's shape, x's shape without its last dimension: unsqueeze(-1) it (and the "
               "norm) before multiplying by x, or it lines up with the wrong dimension (notebook 03).")

# A broadcast that fails inside the learner's forward or backward: grad_output or the norm not unsqueezed.
SHAPE_RULES = (
    Rule("no-unsqueeze", error=("size-mismatch", "not-broadcastable", "cannot-broadcast"),
         message="{what}: {line}. " + literal(EXPAND_HINT), types=(RuntimeError, TypeError)),
    Rule("no-unsqueeze", r"Dimension out of range", message="{what}: {line}. " + literal(EXPAND_HINT),
         types=(IndexError,)),   # unsqueeze(1) where grad_output has no dimension 1 (x a single row)
)

# leading shape + (D,): square shapes make a grad_output broadcast along the wrong dimension silent
SHAPES = ((5,), (4, 4), (2, 3, 4), (3, 1, 2), (6, 1), (1,), (2, 2, 2))
FIXED = "fixed"   # the visible tests' case: a small float64 batch written out below

# (shape, dtype, seed): random rows, every norm at least 0.5
VALUES_CASES = tuple((shape, torch.float32 if (k + seed) % 2 else torch.float64, 10 * seed + k)
                     for seed in (0, 1) for k, shape in enumerate(SHAPES))
# (shape, seed): float64, every norm at least 0.5
GRADCHECK_CASES = tuple((shape, 210 + 10 * seed + k) for seed in (0, 1) for k, shape in enumerate(SHAPES))
# (shape, dtype, seed, every row zero): some rows zeroed, at least one; a grad_output around 1e3
ZERO_ROWS_CASES = tuple((shape, torch.float32 if (k + seed) % 2 else torch.float64, 300 + 10 * seed + k, k == 3)
                        for seed in (0, 1) for k, shape in enumerate(((6, 3), (2, 4, 5), (3, 3), (5, 1), (3,), (4, 2))))
# (norms of the rows, D, dtype, seed): short rows mixed with long ones, grad_output of alternating sign
SMALL_NORMS_CASES = tuple((scales, d, dtype, 510 + 10 * seed + k) for seed in (0, 1)
                          for k, (scales, d, dtype) in enumerate((((1e-9, 1e-6, 1e-5, 1e-3, 10.0), 5, torch.float64),
                                                                  ((1e-6, 1e-4, 1e-2, 1.0), 4, torch.float32),
                                                                  ((1e-6, 3e-6, 2.0), 1, torch.float64),
                                                                  ((1e-5, 1e-6, 1e-3), 8, torch.float32))))


# ------------------------------------------------------------------------------------------- helpers

def _torch_norm(x, g=None):
    """torch's own norm over the last dimension and its gradient for grad_output g by autograd (0 at zero rows),
    in float64, returned in x's dtype."""
    leaf = x.detach().to(torch.float64).requires_grad_(True)
    with torch.enable_grad():
        norm = torch.linalg.vector_norm(leaf, dim=-1)
        weight = torch.ones_like(norm) if g is None else g.detach().to(torch.float64)
        (grad,) = torch.autograd.grad(norm, leaf, weight)
    return norm.detach().to(x.dtype), (grad + 0.0).to(x.dtype)  # (+ 0.0: autograd's -0. at zero rows is 0)


def _tolerances(x, g):
    """(rtol, atol for values, atol for gradients)."""
    size = float(x.detach().abs().max()) if x.numel() else 1.0
    weight = float(g.detach().abs().max()) if g is not None and g.numel() else 1.0
    if x.dtype == torch.float64:
        return 1e-9, 1e-13 * size, 1e-12 * weight
    return 1e-5, 1e-6 * size, 1e-6 * weight


def _dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


def _apply(SN, x, what):
    with c.explained(what, SHAPE_RULES):
        return judged_shape(c.call(SN.apply, x, what=what), x)   # a kept dimension: the values' rule


def _grad(y, x, g, what):
    with c.explained(what, SHAPE_RULES):
        # a copy of g: a backward that writes into grad_output is the values test's rule (require_grad_output_kept)
        (grad,) = c.backward_grads(y, [x], g.clone(), what=what)
    if grad is None:
        c.fail("no-graph", f"{what}: x received no gradient. Is the output connected to x through SafeNorm.apply?")
    return grad


def _require_output(y, x, what):
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor, got {type(y).__name__}.")
    expected = tuple(x.shape[:-1])
    if tuple(y.shape) == expected + (1,):
        c.fail("wrong-dim", f"{what} has shape {tuple(y.shape)}, but x.norm(dim=-1) has shape {expected}: the "
                            "last dimension is reduced away (no keepdim=True in the result).")
    if tuple(y.shape) != expected:
        c.fail("wrong-dim", f"{what} has shape {tuple(y.shape)}, but the norm over the last dimension (dim=-1) has "
                            f"shape {expected}: one norm per row, x.norm(dim=-1), never over another dimension or "
                            "over the whole tensor.")


def _diagnose(grad, x, g, what):
    """Name the usual wrong gradients: grad_output ignored, or broadcast without unsqueeze(-1)."""
    _, expected = _torch_norm(x, g)
    rtol, _, atol = _tolerances(x, g)
    if tuple(grad.shape) != tuple(expected.shape) or bool(torch.allclose(grad, expected, rtol=rtol, atol=atol)):
        return
    _, unit = _torch_norm(x)
    if g.numel() > 1 and bool(torch.allclose(grad, unit, rtol=rtol, atol=atol)):
        c.fail("ignores-grad-output",
               f"{what} is x / norm whatever grad_output is: backward must multiply by grad_output (the "
               "gradient of the loss with respect to the norm), unsqueezed at the last dimension.")
    if x.dim() >= 2 and g.shape[-1] == x.shape[-1]:
        misaligned = g * unit   # grad_output broadcast from the right: along the entries of each row
        if bool(torch.allclose(grad, misaligned, rtol=rtol, atol=atol)):
            c.fail("no-unsqueeze", f"{what} is wrong: grad_output was multiplied without unsqueeze(-1), so it "
                                   "lined up with the entries of each row instead of with the rows. " + EXPAND_HINT)


def _check_grad(grad, x, g, what):
    """The gradient against the reference, with the usual wrong answers named. An eps added to the norm in backward
    is set aside: short rows show it, and that is the small_norms test's rule (one mistake costs its points once)."""
    if eps_added_to_norm(grad, x, g):
        return
    _diagnose(grad, x, g, what)
    _, expected = _torch_norm(x, g)
    rtol, _, atol = _tolerances(x, g)
    c.require_float64_kept(grad, expected, what, "backward")
    c.require_close(grad, expected, what, "wrong-derivative", GRAD_HINT, rtol=rtol, atol=atol)


def _away_from_zero(*shape, seed, dtype=torch.float64, requires_grad=True):
    """A random x whose rows all have a norm of at least 0.5 (far from the kink at 0)."""
    x = c.randn(*shape, seed=seed, requires_grad=False, dtype=torch.float64)
    norm = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    x = torch.where(norm < 0.5, x + 0.5 * torch.sign(x + 1e-9), x)
    return x.to(dtype).requires_grad_(requires_grad)


WEIGHTS = (1.0, -2.0, 0.5, 3.0)   # the visible tests' grad_output: four different weights, one negative


def _fixed(rows):
    x = torch.tensor(rows, dtype=torch.float64, requires_grad=True)
    return x, torch.tensor(WEIGHTS, dtype=torch.float64), "float64"


# ------------------------------------------------------------------------------------------- values

def _values_input(case):
    if case == FIXED:
        return _fixed([[3.0, 4.0, 0.0], [1.0, -2.0, 2.0], [0.5, 0.5, -0.5], [-6.0, 0.0, 8.0]])
    shape, dtype, seed = case
    x = _away_from_zero(*shape, seed=seed, dtype=dtype)
    g = c.randn(*shape[:-1], seed=100 + seed, requires_grad=False, dtype=dtype)
    return x, g, _dtype_name(dtype)


def values(SN, cases=(FIXED,)) -> None:
    """Value and gradient against the reference, and backward leaves what forward saved (the output among it)
    unchanged (where a guard for zero rows changes it in place: on batches with one; the hidden test's are
    ZERO_ROWS_CASES'). Visible: a small float64 batch (no zero row) with a grad_output of 4 weights; VALUES_CASES:
    leading shapes (none, square, three dims), float32 and float64."""
    c.require_function(SN, NAME)
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into
    require_grad_output_kept(lambda: [(_apply(SN, t, "SafeNorm.apply(x)"), [t]) for t in (
        _away_from_zero(3, 4, seed=60), _away_from_zero(3, 4, seed=61))], "the gradient of SafeNorm.apply(x).sum()", NAME)
    def one_case(case) -> None:
        x, g, label = _values_input(case)
        what = f"SafeNorm.apply(x) for x of shape {tuple(x.shape)} ({label})"
        y = _apply(SN, x, what)
        _require_output(y, x, what)
        expected, _ = _torch_norm(x)
        rtol, atol, _ = _tolerances(x, g)
        c.require_float64_kept(y, expected, what, "forward")
        c.require_close(y, expected, what, "wrong-forward", "the result is x.norm(dim=-1).", rtol=rtol, atol=atol)
        grad = _grad(y, x, g, f"SafeNorm.backward ({label})")
        _check_grad(grad, x, g, f"the gradient of SafeNorm.apply(x) for x of shape {tuple(x.shape)} ({label})")
    c.each(cases, one_case)
    for case in (FIXED,) if tuple(cases) == (FIXED,) else (FIXED,) + ZERO_ROWS_CASES:
        x, g, label = _zero_rows_input(case)
        check_saved_unchanged(SN, x, g, f"{label}, a batch with a zero row", SHAPE_RULES)
    check_kept_guarded(SN, SHAPE_RULES)   # x and the norm kept where the version counter guards them


# ---------------------------------------------------------------------------------------- gradcheck

def gradcheck(SN, cases=(((3, 4), 200),)) -> None:
    """float64 gradcheck, every row away from zero. Visible: one (3, 4) batch; GRADCHECK_CASES: shapes and seeds."""
    c.require_function(SN, NAME)
    def one_case(shape, seed) -> None:
        x = _away_from_zero(*shape, seed=seed)
        what = f"SafeNorm (x of shape {tuple(x.shape)}, no zero row)"
        with c.explained(what, SHAPE_RULES):
            c.gradcheck(SN.apply, (x,), what, hint=GRAD_HINT,
                        reference=lambda t: torch.linalg.vector_norm(t, dim=-1))
    c.each(cases, lambda case: one_case(*case))


# ---------------------------------------------------------------------------------------- zero rows

def _zero_rows_input(case):
    if case == FIXED:
        return _fixed([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1.0, -2.0, 2.0], [0.0, 0.5, 0.0]])
    shape, dtype, seed, every_row = case
    x = _away_from_zero(*shape, seed=seed, dtype=dtype, requires_grad=False)
    rows = x.reshape(-1, shape[-1])                        # a view: zeroing rows zeroes x's rows
    chosen = (torch.arange(rows.shape[0]) + seed) % 3 == 0
    chosen[0] |= not bool(chosen.any())                   # at least one zero row
    rows[chosen | every_row] = 0.0
    g = c.randn(*shape[:-1], seed=100 + seed, requires_grad=False, dtype=dtype, scale=1e3)
    return x.requires_grad_(True), g, _dtype_name(dtype)


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def zero_rows(SN, cases=(FIXED,)) -> None:
    """Zero rows: value 0 there, gradient exactly 0 there (never nan or inf), and the other rows' gradient what the
    learner's own SafeNorm gives them in a batch without zero rows. Visible: a float64 batch with one zero row;
    ZERO_ROWS_CASES: several zero rows, leading shapes, float32 and float64, every row zero, a single zero vector,
    large and negative grad_output. The derivative on rows away from 0 is the values test's (one mistake costs its
    own rule's points)."""
    c.require_function(SN, NAME)
    def one_case(case) -> None:
        x, g, label = _zero_rows_input(case)
        batch_or_rows(_check_zero_rows, SN, x, g, label)
    c.each(cases, one_case)


def _check_zero_rows(SN, x, g, label):
    zero = torch.linalg.vector_norm(x.detach(), dim=-1) == 0
    what = f"SafeNorm.apply(x) for x of shape {tuple(x.shape)} with {int(zero.sum())} zero row(s) ({label})"
    y = _apply(SN, x, what)
    _require_output(y, x, what)
    at_zero = y.detach()[zero]
    if not bool((at_zero == 0).all()) and not biased_short_row(SN, _apply):  # else: every short row's bias
        c.fail("value-at-zero",
               f"{what}: the norm of a zero row must be exactly 0, got {at_zero.tolist()[:4]}. An eps inside the "
               "square root (sqrt(sum(x**2) + eps)) or a clamp_min on the norm moves the value of every short row: "
               "compute the norm itself in forward (x.norm(dim=-1)) and deal with 0 in backward only.")
    grad = _grad(y, x, g, f"SafeNorm.backward for {tuple(x.shape)} with zero rows ({label})")
    c.require_shape(grad, x.shape, f"the gradient of {what}", "wrong-grad-shape")
    if not bool(torch.isfinite(grad[zero]).all()):
        c.fail("nan-at-zero",
               f"the gradient of {what} is {grad[zero][0].tolist()} on a zero row: NaN (or inf), from x / norm = "
               "0 / 0. One NaN is enough to turn every weight NaN after the next optimizer step. " + ZERO_HINT)
    if not bool(torch.isfinite(grad).all()):
        c.fail("nan-elsewhere", f"the gradient of {what} contains nan or inf on rows whose norm is positive. "
                                + GRAD_HINT)
    if not bool((grad[zero] == 0).all()):
        c.fail("nonzero-at-zero",
               f"the gradient of {what} is {grad[zero][0].tolist()} on a zero row, but the contract asks for exactly "
               "0 there (the smallest of the norm's subgradients at 0, and what torch.linalg.vector_norm returns), "
               "whatever grad_output is. " + ZERO_HINT)
    if bool(zero.all()):
        return
    _require_rows_untouched(SN, x, g, grad, zero, what)


def _require_rows_untouched(SN, x, g, grad, zero, what):
    """The rows whose norm is positive get what the learner's own SafeNorm gives them in a batch where the zero rows
    are rows of ones: a guard for zero rows leaves the other rows alone, and a backward that gives them nothing has
    no zero row to guard."""
    filled = torch.where(zero.unsqueeze(-1), torch.ones_like(x.detach()), x.detach()).requires_grad_(True)
    label = f"SafeNorm.backward for {tuple(x.shape)} without zero rows"
    mine = _grad(_apply(SN, filled, label), filled, g, label)
    c.require_shape(mine, x.shape, f"the gradient of {label}", "wrong-grad-shape")
    rtol, _, atol = _tolerances(x, g)
    positive = ~zero
    if not bool((grad[positive] != 0).any()):
        c.fail("wrong-derivative", f"the gradient of {what} is 0 on every row, the rows whose norm is positive "
                                   "too: they get x / norm times grad_output. " + GRAD_HINT)
    c.require_close(grad[positive], mine[positive], f"the gradient of {what} on the rows whose norm is positive",
                    "zero-rows-spill",
                    "a batch with zero rows must give the other rows the gradient they get without zero rows: guard "
                    "only the rows whose norm is exactly 0.", rtol=rtol, atol=atol)


# -------------------------------------------------------------------------------------- small norms

def _short_rows(scales, d, seed, dtype):
    """(short rows, the same rows at length 1, the lengths): each length a power of 2 near the scale asked for. A
    power of 2 scales every float exactly, so a right answer gives the short rows exactly their length times the
    unit rows' value and exactly the unit rows' gradient in whatever dtype it computes: a precision lost (the values
    test's) cancels, an eps or a clamp does not."""
    directions = _away_from_zero(len(scales), d, seed=seed, requires_grad=False)
    unit = (directions / torch.linalg.vector_norm(directions, dim=-1, keepdim=True)).to(dtype)
    lengths = torch.tensor([2.0 ** round(math.log2(s)) for s in scales], dtype=dtype)
    return (unit * lengths.unsqueeze(-1)).requires_grad_(True), unit.requires_grad_(True), lengths


def _small_norms_input(case):
    if case == FIXED:
        scales, d, dtype, seed, g = (1.0, 1e-2, 1e-4, 1e-6), 3, torch.float64, 500, torch.tensor(WEIGHTS)
    else:
        scales, d, dtype, seed = case
        g = c.randn(len(scales), seed=seed + 10, requires_grad=False, dtype=dtype, low=0.5)
        g = g * torch.where(torch.arange(len(scales)) % 2 == 0, 1.0, -1.0).to(dtype)
    x, unit, lengths = _short_rows(scales, d, seed, dtype)
    return x, unit, lengths, g.to(dtype), f"{min(scales):.0e} to {max(scales):.0e} ({_dtype_name(dtype)})"


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def small_norms(SN, cases=(FIXED,)) -> None:
    """Short rows get their exact length as their value, and as their gradient what the same rows scaled to length
    1 get from the learner's own SafeNorm (the norm's gradient, the unit vector, does not depend on the row's length;
    the derivative itself is the values test's). Visible: rows of norm 1, 1e-2, 1e-4 and 1e-6 (float64);
    SMALL_NORMS_CASES: float32 and float64, other widths, mixed with long rows."""
    c.require_function(SN, NAME)
    def one_case(case) -> None:
        x, unit, lengths, g, label = _small_norms_input(case)
        batch_or_rows(_check_small, SN, x, g, label, unit, lengths)
    c.each(cases, one_case)


SCALE_HINT = ("The gradient of the norm is the unit vector x / norm however short the row is: an eps added to the "
              "norm in backward (x / (norm + eps)) or a clamp_min(eps) above the row's norm shrinks it, and that "
              "changes the gradient of every short row, not only of the zero rows. Guard only the rows whose norm is "
              "exactly 0.")


def _check_small(SN, x, unit, lengths, g, label):
    what = f"SafeNorm.apply(x) for rows of norm {label}"
    y = _apply(SN, x, what)
    _require_output(y, x, what)
    scaled = f"SafeNorm.apply(x) for the same rows scaled to length 1 ({label.split('(')[-1].rstrip(')')})"
    at_one = _apply(SN, unit, scaled)
    _require_output(at_one, unit, scaled)
    rtol, _, atol = _tolerances(x, g)
    c.require_close(y.detach().to(torch.float64), lengths.to(torch.float64) * at_one.detach().to(torch.float64),
                    f"{what}, against its length times your value for the same rows scaled to length 1",
                    "value-biased",
                    "The norm of a short row is its exact length: an eps inside the square root (sqrt(sum(x**2) + "
                    "eps)) or a clamp_min on the norm makes it longer. Compute x.norm(dim=-1) in forward.",
                    rtol=rtol, atol=0.0)
    grad = _grad(y, x, g, f"SafeNorm.backward for rows of norm {label}")
    c.require_shape(grad, x.shape, f"the gradient of {what}", "wrong-grad-shape")
    mine = _grad(at_one, unit, g, f"SafeNorm.backward for {scaled}")
    c.require_shape(mine, x.shape, f"the gradient of {scaled}", "wrong-grad-shape")
    grad64, mine64 = grad.detach().to(torch.float64), mine.detach().to(torch.float64)
    lengths_of_grad = torch.linalg.vector_norm(grad64, dim=-1)
    wanted = torch.linalg.vector_norm(mine64, dim=-1)
    ratio = lengths_of_grad / wanted.clamp_min(1e-300)
    along = (grad64 * mine64).sum(-1) / (wanted * wanted).clamp_min(1e-300)   # the component along it, per its length
    shrunk = (wanted > 0) & (ratio < 1 - 10 * rtol) & ((along - ratio).abs() <= 10 * rtol * ratio.clamp_min(1e-30))
    if bool(torch.isfinite(ratio).all()) and bool(shrunk.any()):
        ratio, lengths = ratio.reshape(-1), lengths.reshape(-1)
        i = int(torch.argmin(torch.where(shrunk.reshape(-1), ratio, 2.0)))
        c.fail("eps-in-backward",
               f"for a row of norm {float(lengths[i]):.0e}, the gradient of {what} has length {float(ratio[i]):.6g} "
               "times that of the same row scaled to length 1, instead of 1. " + SCALE_HINT)
    c.require_close(grad64, mine64, f"the gradient of {what}, against the gradient of the same rows scaled to "
                    "length 1", "short-rows-differ", SCALE_HINT, rtol=rtol, atol=atol)
