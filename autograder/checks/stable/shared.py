"""What the checks of notebook 07's `SoftmaxCrossEntropy` share (see `stable`): the case tables, the hints, the
trusted reference (torch.nn.functional.cross_entropy, bound when this module is imported), the loss and gradient
comparisons, and the calls of forward and backward (through the engine, called directly with a stand-in ctx, and
with the node autograd made for `SoftmaxCrossEntropy.apply` as its ctx).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from autograder.checks import behaviour
from autograder.checks import common as c

NAME = "SoftmaxCrossEntropy"
INPUTS = ("logits", "target")
SIZES = [(1, 2), (2, 1), (4, 3), (8, 10), (16, 7), (5, 50)]

# (N, C, seed); seed None is the hand-written example below.
VALUES_CASES = ((4, 3, None),)
SIZES_CASES = tuple((n, classes, seed) for seed in (0, 1, 2) for n, classes in SIZES)
GRADCHECK_CASES = tuple((n, classes, seed) for seed in (0, 1) for n, classes in ((1, 3), (3, 4), (6, 5)))
GRAD_OUTPUT_CASES = ((5, 4, 0), (5, 4, 21), (5, 4, 31))
NONE_CASES = ((4, 3, 0), (4, 3, 22), (4, 3, 32))
DTYPE_CASES = ((6, 5, 0), (6, 5, 23), (6, 5, 33))
LSE_HINT = ("exp overflowed or a probability underflowed to 0 before the log. Use the log-sum-exp trick: with m the "
            "row max, loss_i = log(sum(exp(z_i - m_i))) - (z_i[target_i] - m_i), every exponent <= 0 (never "
            "log(softmax)).")
SOFTMAX_HINT = "Compute it stably, e.g. exp(z - logsumexp(z)) or torch.softmax(z, dim=1), never exp(z) / exp(z).sum()."
TARGET_PLACE_REFUSED = ("wrong-arity", "returns-a-list", "missing-none")  # what autograd refuses: none_for_target's
EXAMPLE = ([[2.0, -1.0, 0.5], [0.1, 0.2, 0.3], [-3.0, 4.0, 1.0], [1.0, 1.0, -2.0]], [0, 2, 1, 2])


# ------------------------------------------------------------------------------------------- helpers

def targets(n: int, classes: int, seed: int) -> torch.Tensor:
    return torch.randint(0, classes, (n,), generator=c.generator(seed + 7919 + c.base_seed()))


def _torch_cross_entropy(logits: torch.Tensor, target: torch.Tensor):
    """F.cross_entropy's loss and its gradient for these logits, computed in float64 and returned in the logits'
    dtype."""
    leaf = logits.detach().to(torch.float64).requires_grad_(True)
    with torch.enable_grad():
        loss = F.cross_entropy(leaf, target)
        (grad,) = torch.autograd.grad(loss, [leaf])
    return loss.detach().to(logits.dtype), grad.to(logits.dtype)


def tolerance(logits: torch.Tensor):
    """(rtol, atol) for comparing with the float64 reference: tight in float64; in float32 a few units in
    the last place of the largest logit (the log-sum-exp of logits around 3e4 is only known to ~0.002)."""
    if logits.dtype == torch.float64:
        return 1e-9, 1e-9
    eps = torch.finfo(logits.dtype).eps
    return 1e-4, 1e-6 + 16 * eps * float(logits.detach().abs().max())


def forward_of(SCE, logits, target):
    loss = c.call(SCE.apply, logits, target, what=f"{NAME}.forward", names=INPUTS)
    if not isinstance(loss, torch.Tensor):
        c.fail("not-a-tensor", f"{NAME}.apply(logits, target) should return a tensor, got {type(loss).__name__}.")
    return loss


def require_loss(loss, logits, target, what: str, rtol=1e-7, atol=1e-9) -> None:
    n = logits.shape[0]
    expected, _ = _torch_cross_entropy(logits, target)
    if tuple(loss.shape) != ():
        if tuple(loss.shape) == (n,):
            c.fail("no-mean", f"{what} has shape ({n},), one loss per row: return their mean over the batch, "
                              "a 0-dim tensor (loss.mean()).")
        c.fail("wrong-shape", f"{what} has shape {tuple(loss.shape)} but should be a single number (shape ()): "
                              "the mean cross-entropy over the batch.")
    if loss.dtype != logits.dtype:
        c.fail("wrong-dtype", f"{what} has dtype {loss.dtype} but the logits have {logits.dtype}: compute in the "
                              "logits' dtype (no .double() / .float() conversions).")
    got = loss.detach()
    if not bool(torch.isfinite(got)):
        c.fail("overflow",
               f"{what} is {got.item()} (F.cross_entropy gives {expected.item():.6g}): " + LSE_HINT)
    if bool(torch.allclose(got, expected, rtol=rtol, atol=atol)):
        return
    if n > 1 and bool(torch.allclose(got, n * expected, rtol=rtol, atol=atol)):
        c.fail("sum-instead-of-mean", f"{what} is N = {n} times too large: it is the SUM of the per-row losses. "
                                      "Return their mean (divide by N).")
    if bool(torch.allclose(got, -expected, rtol=rtol, atol=atol)):
        c.fail("wrong-sign", f"{what} has the wrong sign: the cross-entropy is -log p[target] = "
                             "logsumexp(z) - z[target] (positive).")
    c.fail("wrong-loss", f"{what} is {got.item():.6g} but F.cross_entropy gives {expected.item():.6g}: the loss is "
                         "the mean over rows of logsumexp(z_i) - z_i[target_i], with the logsumexp over the classes "
                         "(dim=1).")


def require_grad(grad, logits, target, what: str, rtol=1e-7, atol=1e-9) -> None:
    n, classes = logits.shape
    _, expected = _torch_cross_entropy(logits, target)
    if grad is None:
        c.fail("no-gradient", f"{what} is None: backward must return (softmax - onehot) / N * grad_output for "
                              "the logits.")
    c.require_shape(grad, logits.shape, what, code="wrong-grad-shape")
    got = grad.detach().to(expected.dtype)
    if not bool(torch.isfinite(got).all()):
        c.fail("overflow-backward",
               f"{what} contains inf or nan: backward's softmax overflowed. " + SOFTMAX_HINT)
    if bool(torch.allclose(got, expected, rtol=rtol, atol=atol)):
        return

    def close(candidate):
        return bool(torch.allclose(got, candidate.to(got.dtype), rtol=1e-5, atol=1e-9))

    z = logits.detach()
    onehot = F.one_hot(target, classes).to(z.dtype)
    if n > 1 and close(expected * n):
        c.fail("forgot-divide-by-n", f"{what} is N = {n} times too large: the loss is a MEAN over N rows, so the "
                                     "gradient is (softmax - onehot) / N * grad_output: divide by N.")
    if close(-expected):
        c.fail("wrong-sign", f"{what} has the wrong sign: it is (softmax - onehot) / N, not (onehot - softmax) / N.")
    if close(torch.softmax(z, 1) / n):
        c.fail("forgot-onehot", f"{what} is softmax / N: subtract the one-hot of the targets, "
                                "(softmax - onehot) / N * grad_output.")
    if n > 1 and close((torch.softmax(z, 0) - onehot) / n):
        c.fail("wrong-softmax-dim", f"{what} uses a softmax over the batch (dim=0): the softmax runs over the "
                                    "classes of each row, dim=1.")
    c.fail("wrong-gradient", f"{what} is wrong (largest error {(got - expected).abs().max().item():.3g}): it should "
                             "be (softmax(logits, dim=1) - onehot(target)) / N * grad_output.")


def _direct(SCE, logits, target, grad_output):
    """forward then backward called directly with a FakeCtx: exactly what backward returns (as a tuple)."""
    ctx, logits = c.FakeCtx((True, False)), logits.detach().clone()  # a forward changing it: the values' rule
    with c.explained(NAME, (c.NOT_IMPLEMENTED,)), torch.no_grad():
        if c.uses_setup_context(SCE):
            loss = SCE.forward(logits, target)
            SCE.setup_context(ctx, (logits, target), loss)
        else:
            loss = SCE.forward(ctx, logits, target)
        grads = SCE.backward(ctx, grad_output)
    return loss, tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)


BY_ITS_NODE = (f"Called directly, your backward returned what it should; but with the node autograd made for "
               f"{NAME}.apply as its ctx, ")  # the feedback's start where only autograd's own node shows the mistake


def _by_its_node(SCE, logits, target, grad_output):
    """What backward returns with the node autograd made for SCE.apply(logits, target) as its ctx, or None when
    SCE.apply makes no node of its own (the tests through the engine say so)."""
    return behaviour.backward_by_its_node(SCE, (logits.detach().clone().requires_grad_(True), target), grad_output,
                                          what=f"{NAME}.backward with autograd's own node as its ctx", names=INPUTS)


def both(SCE, logits, target, grad_output):
    """(what backward returned, how its feedback starts): called directly, then with autograd's own node."""
    _, grads = _direct(SCE, logits, target, grad_output)
    yield grads, ""
    real = _by_its_node(SCE, logits, target, grad_output)
    if real is not None:
        yield real, BY_ITS_NODE


def loss_and_grad(SCE, logits, target, scale=1.0):
    """The loss and the gradient of loss * scale via the engine."""
    leaf = logits.detach().clone().requires_grad_(True)
    loss = forward_of(SCE, leaf, target)
    if loss.grad_fn is None:
        c.fail("no-graph", f"{NAME}.apply(logits, target) is not connected to the logits' graph (no grad_fn): call "
                           f"{NAME}.apply and return forward's result.")
    return loss, logits_grad(SCE, loss, leaf, target, scale)


def logits_grad(SCE, loss, leaf, target, scale=1.0):
    """The gradient of loss * scale for the logits (`leaf`) through autograd; where autograd refuses target's place
    (none_for_target's rule), what backward returned for the logits with autograd's own node as its ctx."""
    try:
        return c.backward_grads(loss * scale if scale != 1.0 else loss, [leaf], what=f"{NAME}.backward",
                                names=INPUTS)[0]
    except c.Mistake as refused:
        if refused.code not in TARGET_PLACE_REFUSED:
            raise
    returned = _by_its_node(SCE, leaf, target, torch.tensor(scale, dtype=leaf.dtype)) or (None,)
    return returned[0] if isinstance(returned[0], torch.Tensor) else None


def case_of(n: int, classes: int, seed):
    if seed is None:
        return torch.tensor(EXAMPLE[0], dtype=torch.float64), torch.tensor(EXAMPLE[1])
    return c.randn(n, classes, seed=seed, scale=2.0, requires_grad=False), targets(n, classes, seed)
