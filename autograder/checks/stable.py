"""Checks for `SoftmaxCrossEntropy` (notebook 07).

`SoftmaxCrossEntropy.apply(logits, target)`: the mean cross-entropy of (N, C) logits and (N,) int64 class
indices, finite and accurate for logits of magnitude 1e4 (log-sum-exp trick); backward returns
(softmax(logits) - onehot(target)) / N * grad_output for the logits and None for target.
The trusted reference is torch.nn.functional.cross_entropy, bound when this module is imported.

Each check takes `cases=`: its default is what the visible test cell runs, the hidden block passes the module's
larger table. What backward returns before the engine converts or drops it (its dtype, the None for target, its
scaling with grad_output) is read twice: called directly with a stand-in ctx, and with the node autograd made for
`SoftmaxCrossEntropy.apply` as its ctx (`behaviour.backward_by_its_node`); a test's point needs both.
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
_TARGET_PLACE_REFUSED = ("wrong-arity", "returns-a-list", "missing-none")  # what autograd refuses: none_for_target's
_EXAMPLE = ([[2.0, -1.0, 0.5], [0.1, 0.2, 0.3], [-3.0, 4.0, 1.0], [1.0, 1.0, -2.0]], [0, 2, 1, 2])


# ------------------------------------------------------------------------------------------- helpers

def _targets(n: int, classes: int, seed: int) -> torch.Tensor:
    return torch.randint(0, classes, (n,), generator=c.generator(seed + 7919 + c.base_seed()))


def _torch_cross_entropy(logits: torch.Tensor, target: torch.Tensor):
    """F.cross_entropy's loss and its gradient for these logits, computed in float64 and returned in the logits'
    dtype."""
    leaf = logits.detach().to(torch.float64).requires_grad_(True)
    with torch.enable_grad():
        loss = F.cross_entropy(leaf, target)
        (grad,) = torch.autograd.grad(loss, [leaf])
    return loss.detach().to(logits.dtype), grad.to(logits.dtype)


def _tolerance(logits: torch.Tensor):
    """(rtol, atol) for comparing with the float64 reference: tight in float64; in float32 a few units in
    the last place of the largest logit (the log-sum-exp of logits around 3e4 is only known to ~0.002)."""
    if logits.dtype == torch.float64:
        return 1e-9, 1e-9
    eps = torch.finfo(logits.dtype).eps
    return 1e-4, 1e-6 + 16 * eps * float(logits.detach().abs().max())


def _forward(SCE, logits, target):
    loss = c.call(SCE.apply, logits, target, what=f"{NAME}.forward", names=INPUTS)
    if not isinstance(loss, torch.Tensor):
        c.fail("not-a-tensor", f"{NAME}.apply(logits, target) should return a tensor, got {type(loss).__name__}.")
    return loss


def _require_loss(loss, logits, target, what: str, rtol=1e-7, atol=1e-9) -> None:
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


def _require_grad(grad, logits, target, what: str, rtol=1e-7, atol=1e-9) -> None:
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


def _both(SCE, logits, target, grad_output):
    """(what backward returned, how its feedback starts): called directly, then with autograd's own node."""
    _, grads = _direct(SCE, logits, target, grad_output)
    yield grads, ""
    real = _by_its_node(SCE, logits, target, grad_output)
    if real is not None:
        yield real, BY_ITS_NODE


def _grad(SCE, logits, target, scale=1.0):
    """The loss and the gradient of loss * scale via the engine."""
    leaf = logits.detach().clone().requires_grad_(True)
    loss = _forward(SCE, leaf, target)
    if loss.grad_fn is None:
        c.fail("no-graph", f"{NAME}.apply(logits, target) is not connected to the logits' graph (no grad_fn): call "
                           f"{NAME}.apply and return forward's result.")
    return loss, _logits_grad(SCE, loss, leaf, target, scale)


def _logits_grad(SCE, loss, leaf, target, scale=1.0):
    """The gradient of loss * scale for the logits (`leaf`) through autograd; where autograd refuses target's place
    (none_for_target's rule), what backward returned for the logits with autograd's own node as its ctx."""
    try:
        return c.backward_grads(loss * scale if scale != 1.0 else loss, [leaf], what=f"{NAME}.backward",
                                names=INPUTS)[0]
    except c.Mistake as refused:
        if refused.code not in _TARGET_PLACE_REFUSED:
            raise
    returned = _by_its_node(SCE, leaf, target, torch.tensor(scale, dtype=leaf.dtype)) or (None,)
    return returned[0] if isinstance(returned[0], torch.Tensor) else None


# -------------------------------------------------------------------------------------------- checks

def _case(n: int, classes: int, seed):
    if seed is None:
        return torch.tensor(_EXAMPLE[0], dtype=torch.float64), torch.tensor(_EXAMPLE[1])
    return c.randn(n, classes, seed=seed, scale=2.0, requires_grad=False), _targets(n, classes, seed)


def values(SCE, cases=VALUES_CASES) -> None:
    """Loss and gradient against F.cross_entropy in float64, one case per (N, C, seed); own graph node."""
    c.require_function(SCE, NAME)
    c.require_self_contained(SCE, NAME)
    def one_case(n, classes, seed) -> None:
        logits, target = _case(n, classes, seed)
        what = "" if seed is None else f" for N={n}, C={classes}"
        loss = _forward(SCE, leaf := logits.clone().requires_grad_(True), target)
        _require_loss(loss, logits, target, f"{NAME}.apply(logits, target){what}")
        c.require_own_node(loss, SCE, NAME)
        _require_grad(_logits_grad(SCE, loss, leaf, target), logits, target,
                      f"the gradient of the loss with respect to the logits{what}")
    c.each(cases, lambda case: one_case(*case))


def gradcheck(SCE, cases=GRADCHECK_CASES[1:2]) -> None:
    """float64 finite differences with respect to the logits, one case per (N, C, seed)."""
    c.require_function(SCE, NAME)
    def one_case(n, classes, seed) -> None:
        logits, target = c.randn(n, classes, seed=seed), _targets(n, classes, seed)
        try:
            c.gradcheck(lambda z: SCE.apply(z, target), (logits,), f"{NAME} for N={n}, C={classes}",
                        names=INPUTS[:1], reference=lambda z: torch.nn.functional.cross_entropy(z, target),
                        hint="backward must return (softmax(logits, dim=1) - onehot(target)) / N * grad_output.")
        except c.Mistake as refused:  # autograd refuses target's place: the logits' gradient, by its node
            if refused.code not in _TARGET_PLACE_REFUSED:
                raise
            _require_grad(_grad(SCE, logits, target)[1], logits, target,
                          f"the gradient of {NAME} for N={n}, C={classes}")
    c.each(cases, lambda case: one_case(*case))


def _extreme(kind: str, seed: int):
    """(logits, target) of one kind of extreme logits: magnitudes around 1e4 and large spreads."""
    if kind == "two rows with logits of size 1e4":
        return torch.tensor([[1e4, 0.0, -1e4], [3.0, 1e4, 2.0]], dtype=torch.float64), torch.tensor([2, 1])
    if kind == "logits of magnitude 1e4":
        return c.randn(6, 5, seed=seed, scale=1e4, requires_grad=False), _targets(6, 5, seed)
    if kind == "a spread of 2e4 within a row (target at the smallest logit)":
        spread = torch.tensor([[1e4, 0.0, -1e4], [-1e4, 1e4, 0.0], [0.0, 5.0, -1e4]], dtype=torch.float64)
        return spread, torch.tensor([2, 0, 2])
    if kind == "every logit equal to 1e4":
        return torch.full((3, 4), 1e4, dtype=torch.float64), torch.tensor([0, 1, 3])
    if kind == "every logit near -1e4":
        return torch.tensor([[-1e4, 1.0 - 1e4, -1e4, -1e4], [-1e4] * 4], dtype=torch.float64), torch.tensor([1, 2])
    if kind == "logits around 3e4":
        return c.randn(4, 6, seed=seed + 1, requires_grad=False) + 3e4, _targets(4, 6, seed + 1)
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
        rtol, atol = _tolerance(z)
        what = f"with {kind} ({dtype})"
        loss, grad = _grad(SCE, z, target)
        shifted_loss, shifted_grad = _shifted(SCE, z, target)
        _require_stable_loss(loss, shifted_loss, f"{NAME}.apply(logits, target) {what}", rtol=rtol, atol=atol)
        _require_stable_grad(grad, shifted_grad, z, f"the gradient {what}", rtol=rtol, atol=atol)
        if dtype == torch.float32:
            _require_precise_loss(loss, shifted_loss, z, f"{NAME}.apply(logits, target) {what}")
    c.each(cases, lambda case: one_case(*case))


def _shifted(SCE, logits, target):
    """The answer's own float64 loss and gradient for the logits minus their largest value (exact in float64)."""
    z = logits.detach().to(torch.float64)
    loss, grad = _grad(SCE, z - z.max(), target)
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


def grad_output(SCE, cases=GRAD_OUTPUT_CASES[:1]) -> None:
    """The gradient of loss * 3 is 3 times the gradient (through the engine and called directly)."""
    c.require_function(SCE, NAME)
    for n, classes, seed in cases:
        logits = c.randn(n, classes, seed=seed, requires_grad=False)
        target = _targets(n, classes, seed)
        loss, grad = _grad(SCE, logits, target, scale=3.0)
        c.require_own_node(loss, SCE, NAME)
        _, unit = _grad(SCE, logits, target)
        _require_scaled(grad, unit, 3.0, "the gradient of loss * 3")
        for (grads, lead), (units, _) in zip(_both(SCE, logits, target, torch.tensor(-2.5, dtype=torch.float64)),
                                             _both(SCE, logits, target, torch.tensor(1.0, dtype=torch.float64))):
            _require_scaled((grads or (None,))[0], (units or (None,))[0], -2.5,
                            f"{lead}what {NAME}.backward returns for grad_output = -2.5")


def _require_scaled(grad, unit, scale: float, what: str) -> None:
    """`grad` is `scale` times `unit`, the answer's own gradient for grad_output = 1 (a nonzero tensor)."""
    for value, which in ((unit, f"{NAME}.backward's gradient for grad_output = 1"), (grad, what)):
        if not isinstance(value, torch.Tensor):
            c.fail("no-gradient", f"{which} is {behaviour.type_name(value)}: backward must return "
                                  "(softmax - onehot) / N * grad_output for the logits.")
    if not bool(unit.detach().ne(0).any()):
        c.fail("no-gradient", f"{NAME}.backward's gradient for grad_output = 1 is zero everywhere, so its scaling "
                              "with grad_output cannot be seen: return (softmax - onehot) / N * grad_output.")
    expected = unit.detach().to(torch.float64) * scale
    got = grad.detach().to(torch.float64)
    if got.shape != expected.shape or not bool(torch.allclose(got, expected, rtol=1e-7, atol=1e-9)):
        c.fail("ignores-grad-output", f"{what} is not {scale:g} times the gradient for grad_output = 1: backward "
                                      "must multiply by grad_output.")


def none_for_target(SCE, cases=NONE_CASES[:1]) -> None:
    """backward returns None for the integer target (called directly: the engine would drop it)."""
    c.require_function(SCE, NAME)
    for n, classes, seed in cases:
        logits = c.randn(n, classes, seed=seed, requires_grad=False)
        target = _targets(n, classes, seed)
        for grads, lead in _both(SCE, logits, target, torch.tensor(1.0, dtype=torch.float64)):
            if len(grads) != 2:
                c.fail("wrong-arity", f"{lead}{NAME}.backward returned {len(grads)} value(s) but forward takes 2 "
                                      "inputs (logits, target): return (grad_logits, None).")
            if grads[1] is not None:
                c.fail("missing-none",
                       f"{lead}{NAME}.backward returned a {behaviour.type_name(grads[1])} for input 2 (target): "
                       "target holds integer class indices and has no gradient. Return None in that position: "
                       "return grad_logits, None.")
            if not isinstance(grads[0], torch.Tensor):
                c.fail("no-gradient", f"{lead}{NAME}.backward returned {behaviour.type_name(grads[0])} for "
                                      "input 1 (logits): return (grad_logits, None).")


@c.inputs_judged_elsewhere()
def dtype(SCE, cases=DTYPE_CASES[:1]) -> None:
    """float32 logits give a float32 loss and gradient (backward called directly: the engine would convert one)."""
    c.require_function(SCE, NAME)
    for n, classes, seed in cases:
        for dt in (torch.float32, torch.float64):
            logits = c.randn(n, classes, seed=seed, dtype=dt, requires_grad=False)
            target = _targets(n, classes, seed)
            loss = _forward(SCE, logits.clone().requires_grad_(True), target)
            if loss.dtype != dt:
                c.fail("wrong-dtype", f"for {dt} logits, {NAME}.apply returned a {loss.dtype} loss: compute in "
                                      "the logits' dtype (no .double() / .float() conversions).")
            for grads, lead in _both(SCE, logits, target, torch.tensor(1.0, dtype=dt)):
                if not isinstance(grads[0], torch.Tensor):
                    c.fail("no-gradient", f"{lead}{NAME}.backward returned {behaviour.type_name(grads[0])} "
                                          "for the logits.")
                if grads[0].dtype != dt:
                    c.fail("wrong-dtype", f"{lead}for {dt} logits, {NAME}.backward returned a {grads[0].dtype} "
                                          "gradient: it must have the logits' dtype (build the one-hot with "
                                          "dtype=logits.dtype, no .double()).")
