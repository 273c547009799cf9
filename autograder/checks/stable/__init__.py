"""Checks for `SoftmaxCrossEntropy` (notebook 07).

`SoftmaxCrossEntropy.apply(logits, target)`: the mean cross-entropy of (N, C) logits and (N,) int64 class
indices, finite and accurate for logits of magnitude 1e4 (log-sum-exp trick); backward returns
(softmax(logits) - onehot(target)) / N * grad_output for the logits and None for target.
The trusted reference is torch.nn.functional.cross_entropy, bound when this module is imported.

Each check takes `cases=`: its default is what the visible test cell runs, the hidden block passes the module's
larger table. What backward returns before the engine converts or drops it (its dtype, the None for target, its
scaling with grad_output) is read twice: called directly with a stand-in ctx, and with the node autograd made for
`SoftmaxCrossEntropy.apply` as its ctx (`behaviour.backward_by_its_node`); a test's point needs both.

The checks live in stable/: the stability check (extreme logits) in `extremes.py`, what the checks share (the
case tables, the reference, the calls of forward and backward) in `shared.py`.
"""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.common.shared_grad_output import require_grad_output_unshared
from autograder.checks.stable.extremes import EXTREME_KINDS, STABLE_CASES, stable  # noqa: F401
from autograder.checks.stable.shared import (  # noqa: F401
    DTYPE_CASES, EXAMPLE, GRAD_OUTPUT_CASES, GRADCHECK_CASES, INPUTS, NAME, NONE_CASES, SIZES, SIZES_CASES,
    TARGET_PLACE_REFUSED, VALUES_CASES, both, case_of, forward_of, logits_grad, loss_and_grad, require_grad,
    require_loss, targets,
)


def values(SCE, cases=VALUES_CASES) -> None:
    """Loss and gradient against F.cross_entropy in float64, one case per (N, C, seed); own graph node."""
    c.require_function(SCE, NAME)
    c.require_self_contained(SCE, NAME)
    def one_case(n, classes, seed) -> None:
        logits, target = case_of(n, classes, seed)
        what = "" if seed is None else f" for N={n}, C={classes}"
        loss = forward_of(SCE, leaf := logits.clone().requires_grad_(True), target)
        require_loss(loss, logits, target, f"{NAME}.apply(logits, target){what}")
        c.require_own_node(loss, SCE, NAME)
        require_grad(logits_grad(SCE, loss, leaf, target), logits, target,
                      f"the gradient of the loss with respect to the logits{what}")
    c.each(cases, lambda case: one_case(*case))
    _require_kept_guarded(SCE)
    require_grad_output_unshared(SCE, (torch.tensor(EXAMPLE[0], dtype=torch.float64), torch.tensor(EXAMPLE[1])), NAME)


def _require_kept_guarded(SCE) -> None:
    """The logits (doubled), then target (shifted by one class), changed in place after forward: backward raises
    autograd's in-place error (kept with ctx.save_for_backward, as the statement asks) or gives the gradient of the
    call left alone (common/kept_guarded.py): a tensor the caller holds, kept as a ctx attribute, escapes it."""
    logits, target = torch.tensor(EXAMPLE[0], dtype=torch.float64), torch.tensor(EXAMPLE[1])
    shift = lambda inputs, outputs: inputs[1].copy_((inputs[1] + 1) % logits.shape[1])  # noqa: E731
    with c.explained(f"{NAME}.apply(logits, target)", (c.NOT_IMPLEMENTED,)):
        for kept, change in (("the logits", lambda inputs, outputs: inputs[0].mul_(2.0)), ("target", shift)):
            kept_guarded.require_kept_guarded(SCE.apply, [logits, target.clone()], what=f"{NAME}.backward", kept=kept,
                                              change=change)


def gradcheck(SCE, cases=GRADCHECK_CASES[1:2]) -> None:
    """float64 finite differences with respect to the logits, one case per (N, C, seed)."""
    c.require_function(SCE, NAME)
    def one_case(n, classes, seed) -> None:
        logits, target = c.randn(n, classes, seed=seed), targets(n, classes, seed)
        try:
            c.gradcheck(lambda z: SCE.apply(z, target), (logits,), f"{NAME} for N={n}, C={classes}",
                        names=INPUTS[:1], reference=lambda z: torch.nn.functional.cross_entropy(z, target),
                        hint="backward must return (softmax(logits, dim=1) - onehot(target)) / N * grad_output.")
        except c.Mistake as refused:  # autograd refuses target's place: the logits' gradient, by its node
            if refused.code not in TARGET_PLACE_REFUSED:
                raise
            require_grad(loss_and_grad(SCE, logits, target)[1], logits, target,
                          f"the gradient of {NAME} for N={n}, C={classes}")
    c.each(cases, lambda case: one_case(*case))



def grad_output(SCE, cases=GRAD_OUTPUT_CASES[:1]) -> None:
    """The gradient of loss * 3 is 3 times the gradient (through the engine and called directly)."""
    c.require_function(SCE, NAME)
    for n, classes, seed in cases:
        logits = c.randn(n, classes, seed=seed, requires_grad=False)
        target = targets(n, classes, seed)
        loss, grad = loss_and_grad(SCE, logits, target, scale=3.0)
        c.require_own_node(loss, SCE, NAME)
        _, unit = loss_and_grad(SCE, logits, target)
        _require_scaled(grad, unit, 3.0, "the gradient of loss * 3")
        for (grads, lead), (units, _) in zip(both(SCE, logits, target, torch.tensor(-2.5, dtype=torch.float64)),
                                             both(SCE, logits, target, torch.tensor(1.0, dtype=torch.float64))):
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
    # to float32 rounding: a gradient that lost float64 precision is the dtype test's rule, a wrong scale is this one's
    if got.shape != expected.shape or not bool(torch.allclose(got, expected, rtol=1e-5, atol=1e-8)):
        c.fail("ignores-grad-output", f"{what} is not {scale:g} times the gradient for grad_output = 1: backward "
                                      "must multiply by grad_output.")


def none_for_target(SCE, cases=NONE_CASES[:1]) -> None:
    """backward returns None for the integer target (called directly: the engine would drop it)."""
    c.require_function(SCE, NAME)
    for n, classes, seed in cases:
        logits = c.randn(n, classes, seed=seed, requires_grad=False)
        target = targets(n, classes, seed)
        for grads, lead in both(SCE, logits, target, torch.tensor(1.0, dtype=torch.float64)):
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
            target = targets(n, classes, seed)
            loss = forward_of(SCE, logits.clone().requires_grad_(True), target)
            if loss.dtype != dt:
                c.fail("wrong-dtype", f"for {dt} logits, {NAME}.apply returned a {loss.dtype} loss: compute in "
                                      "the logits' dtype (no .double() / .float() conversions).")
            for grads, lead in both(SCE, logits, target, torch.tensor(1.0, dtype=dt)):
                if not isinstance(grads[0], torch.Tensor):
                    c.fail("no-gradient", f"{lead}{NAME}.backward returned {behaviour.type_name(grads[0])} "
                                          "for the logits.")
                if grads[0].dtype != dt:
                    c.fail("wrong-dtype", f"{lead}for {dt} logits, {NAME}.backward returned a {grads[0].dtype} "
                                          "gradient: it must have the logits' dtype (build the one-hot with "
                                          "dtype=logits.dtype, no .double()).")
