"""The capstone's Nones (notebook 14) as a reference for the other rules' first-order tests: autograd refuses a
backward that does not return one value per input of forward (grad_x, None, None), so, when the answer's does not
(the none test's rule), the values, stability and shapes tests judge `NonesSupplied`, a Function of the judge's made
of LogSumExp's own forward, setup_context and backward (called through the learner's proxies with a stand-in ctx)
that returns the answer's grad_x and supplies the Nones itself. Second derivatives and the transforms differentiate
or transform the answer's own Function, which nothing can stand in for: their rules `require` the none rule
(tests/zoo/rules.toml) and their tests say "not judged" (`require_nones_first`)."""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.capstone.rules import run, set_up_ctx

class NonesSupplied(torch.autograd.Function):
    """LogSumExp's own methods, with (grad_x, None, None) made of whatever grad_x its backward returns."""

    @staticmethod
    def forward(ctx, LSE, x, dim, keepdim):
        out, ctx.stand_in = set_up_ctx(LSE, x.detach(), dim, keepdim)
        ctx.LSE = LSE
        return out.detach().clone()

    @staticmethod
    def backward(ctx, grad_output):
        grads = run(ctx.LSE.backward, ctx.stand_in, grad_output, what="LogSumExp.backward(ctx, grad_output)")
        grad_x = grads if isinstance(grads, torch.Tensor) or not isinstance(grads, (tuple, list)) or not grads \
            else grads[0]   # a bare grad_x as it is: the Nones are not this Function's rule
        return None, grad_x, None, None


class _Supplied:
    """LogSumExp as the checks call it (.apply, and its methods), with NonesSupplied's apply."""

    def __init__(self, LSE):
        self._lse = LSE

    def apply(self, x, dim, keepdim):
        return NonesSupplied.apply(self._lse, x, dim, keepdim)

    def __getattr__(self, name):
        return getattr(self._lse, name)


def _returns_one_per_input(LSE) -> bool:
    """Whether LogSumExp.backward, called directly after forward and setup_context, returns three values (a failed
    call says nothing here: the test itself then meets it)."""
    try:
        x = c.randn(3, 4, seed=990, requires_grad=False)
        out, ctx = set_up_ctx(LSE, x, 1, True)
        # as a lambda: a backward that writes into its grad_output (a fresh one) is the values test's rule
        grads = run(lambda: LSE.backward(ctx, torch.ones_like(out)), what="LogSumExp.backward called directly")
    except c.Mistake:
        return True
    return isinstance(grads, (tuple, list)) and len(grads) == 3


def nones_supplied(LSE):
    """LogSumExp itself, or, when its backward does not return one value per input, the same with the Nones
    supplied by the judge (the none test's rule is judged there, and only there)."""
    return LSE if _returns_one_per_input(LSE) else _Supplied(LSE)


def require_nones_first(LSE, what: str) -> None:
    """A test that differentiates or transforms the answer's own Function (`what` it measures) is not judged while
    its backward returns the wrong number of values, which autograd refuses: that is the none test's mistake."""
    if not _returns_one_per_input(LSE):
        c.fail("wrong-arity", f"not judged: {what} can only be measured once the none test's rule holds: autograd "
                              "refuses a backward that does not return one value per input of forward (x, dim, "
                              "keepdim), so there is nothing to differentiate or transform yet.")
