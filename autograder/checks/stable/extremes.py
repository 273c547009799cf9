"""The stability check of notebook 07's `SoftmaxCrossEntropy` (see `stable`): extreme logits (1e4 magnitudes,
large spreads) in float64 and float32, each against the answer's own loss and gradient for the same logits shifted
down by their largest value.
"""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.stable.shared import LSE_HINT, NAME, SOFTMAX_HINT, loss_and_grad, targets, tolerance


def _extreme(kind: str, seed: int):
    """(logits, target) of one kind of extreme logits: magnitudes around 1e4 and large spreads."""
    if kind == "two rows with logits of size 1e4":
        return torch.tensor([[1e4, 0.0, -1e4], [3.0, 1e4, 2.0]], dtype=torch.float64), torch.tensor([2, 1])
    if kind == "logits of magnitude 1e4":
        return c.randn(6, 5, seed=seed, scale=1e4, requires_grad=False), targets(6, 5, seed)
    if kind == "a spread of 2e4 within a row (target at the smallest logit)":
        spread = torch.tensor([[1e4, 0.0, -1e4], [-1e4, 1e4, 0.0], [0.0, 5.0, -1e4]], dtype=torch.float64)
        return spread, torch.tensor([2, 0, 2])
    if kind == "every logit equal to 1e4":
        return torch.full((3, 4), 1e4, dtype=torch.float64), torch.tensor([0, 1, 3])
    if kind == "every logit near -1e4":
        return torch.tensor([[-1e4, 1.0 - 1e4, -1e4, -1e4], [-1e4] * 4], dtype=torch.float64), torch.tensor([1, 2])
    if kind == "logits around 3e4":
        return c.randn(4, 6, seed=seed + 1, requires_grad=False) + 3e4, targets(4, 6, seed + 1)
    raise ValueError(kind)


EXTREME_KINDS = ("logits of magnitude 1e4", "a spread of 2e4 within a row (target at the smallest logit)",
                 "every logit equal to 1e4", "every logit near -1e4", "logits around 3e4")
STABLE_CASES = (("two rows with logits of size 1e4", 0, torch.float64),) + tuple(  # (kind, seed, dtype)
    (kind, seed, dtype) for seed in (0, 1) for kind in EXTREME_KINDS for dtype in (torch.float64, torch.float32))


@c.inputs_judged_elsewhere()
def stable(SCE, cases=STABLE_CASES[:1]) -> None:
    """Extreme logits (1e4 magnitudes, large spreads), in float64 and float32: a finite loss and gradient, each what
    the answer itself gives for the same logits shifted down by their largest value (cross-entropy and its gradient
    do not change when one constant is added to every logit, and shifted logits are all <= 0). Whether those values
    are right is the values test's: this one measures stability only."""
    c.require_function(SCE, NAME)
    def one_case(kind, seed, dtype) -> None:
        logits, target = _extreme(kind, seed)
        z = logits.to(dtype)
        rtol, atol = tolerance(z)
        what = f"with {kind} ({dtype})"
        loss, grad = loss_and_grad(SCE, z, target)
        shifted_loss, shifted_grad = _shifted(SCE, z, target)
        _require_stable_loss(loss, shifted_loss, f"{NAME}.apply(logits, target) {what}", rtol=rtol, atol=atol)
        _require_stable_grad(grad, shifted_grad, z, f"the gradient {what}", rtol=rtol, atol=atol)
        if dtype == torch.float32:
            _require_precise_loss(loss, shifted_loss, z, f"{NAME}.apply(logits, target) {what}")
    c.each(cases, lambda case: one_case(*case))


def _shifted(SCE, logits, target):
    """The answer's own float64 loss and gradient for the logits minus their largest value (exact in float64)."""
    z = logits.detach().to(torch.float64)
    loss, grad = loss_and_grad(SCE, z - z.max(), target)
    c.require_shape(grad, logits.shape, "the gradient for ordinary logits", code="wrong-grad-shape")
    return loss.detach(), grad.detach()


def _require_stable_loss(loss, shifted_loss, what: str, rtol: float, atol: float) -> None:
    got = loss.detach().to(torch.float64)
    if got.shape != shifted_loss.shape or not bool(torch.isfinite(got).all()) or not bool(
            torch.allclose(got, shifted_loss.to(torch.float64), rtol=rtol, atol=atol)):
        shown = got.item() if got.numel() == 1 else "not one number"
        c.fail("overflow",
               f"{what} is {shown}, but for the same logits shifted down by their largest value (the same "
               f"cross-entropy) your function gives {shifted_loss.flatten()[0].item():.6g}: " + LSE_HINT)


def _require_stable_grad(grad, shifted_grad, logits, what: str, rtol: float, atol: float) -> None:
    if grad is None:
        c.fail("no-gradient", f"{what} is None: backward must return (softmax - onehot) / N * grad_output for "
                              "the logits.")
    c.require_shape(grad, logits.shape, what, code="wrong-grad-shape")
    got = grad.detach().to(torch.float64)
    if not bool(torch.isfinite(got).all()) or not bool(torch.allclose(got, shifted_grad, rtol=rtol, atol=atol)):
        c.fail("overflow-backward",
               f"{what} is not what your backward gives for the same logits shifted down by their largest value "
               f"(largest difference {(got - shifted_grad).abs().nan_to_num(float('inf')).max().item():.3g}): "
               "backward's softmax " + ("lost precision. " if got.isfinite().all() else "overflowed. ") + SOFTMAX_HINT)


# In float32 the loss of the shifted logits is known to a few units in the last place of the loss itself; adding the
# row maximum back (m + log(sum(exp(z - m))), as torch.logsumexp does) first rounds to the last place of m, and a
# loss of log 2 next to logits of 1e4 keeps only three digits (the lesson's 0.693359375).
PRECISE_LOSS_ULPS = 16


def _require_precise_loss(loss, shifted_loss, logits, what: str) -> None:
    """The float32 loss within a few units in its own last place of the answer's float64 loss of the shifted logits."""
    expected = float(shifted_loss)
    error = abs(float(loss.detach().to(torch.float64)) - expected)
    ulp = float(torch.finfo(logits.dtype).eps) * max(abs(expected), 1.0)
    if error > PRECISE_LOSS_ULPS * ulp:
        m = float(logits.detach().abs().max())
        c.fail("max-added-back",
               f"{what} is {float(loss):.9g} but for the same logits shifted down by their largest value your "
               f"function gives {expected:.9g} in float64: {error / ulp:.0f} units in the last place of the loss. "
               f"The row maximum (about {m:.3g} here) was added back into the log-sum-exp, and that sum rounds to "
               "the last place of the maximum, not of the loss. Subtract each row's maximum and never add it back: "
               "the loss of a row is the log-sum-exp of the shifted logits minus the shifted logit of its target.")

