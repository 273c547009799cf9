"""Cube (notebook 10) written half in the torch.func style: forward(x) without ctx, but no setup_context. Autograd
then still calls forward(ctx, x), so nothing of the Function runs; the missing setup_context is the transforms
rule's (the split style torch.func needs). The first-order tests of the derivative (values, gradcheck, the Jacobian
row by row) take the reference's setup_context instead, which saves x: `SetupSupplied` is a Function of the judge's
made of the answer's own forward and backward (called through the learner's proxies, with a stand-in ctx)."""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.torch_func.rules import run


class SetupSupplied(torch.autograd.Function):
    """The answer's forward(x) and backward(ctx, grad_output), with the reference's setup_context between them."""

    @staticmethod
    def forward(ctx, Fn, name, x):
        ctx.Fn, ctx.name = Fn, name
        ctx.stand_in = behaviour.stand_in_ctx(name, (True,))
        # what the reference's setup_context saves, unchanged by what the caller does to x after the call (as the
        # version counter would guard it): how x is kept is the answer's own setup_context's rule, which has none
        ctx.stand_in.save_for_backward(x.detach().clone())
        return run(Fn.forward, x.detach(), what=f"{name}.forward(x)").detach().clone()

    @staticmethod
    def backward(ctx, grad_output):
        grad = run(ctx.Fn.backward, ctx.stand_in, grad_output, what=f"{ctx.name}.backward(ctx, grad_output)")
        return None, None, grad[0] if isinstance(grad, (tuple, list)) and len(grad) == 1 else grad


class _Supplied:
    """The Function as the derivative's checks call it (.apply), with SetupSupplied's apply."""

    def __init__(self, Fn, name):
        self._fn, self._name = Fn, name

    def apply(self, x):
        return SetupSupplied.apply(self._fn, self._name, x)


def setup_supplied(Fn, name: str):
    """Fn itself, or, for a forward(x) without ctx and no setup_context, Fn with the reference's setup_context."""
    if c.uses_setup_context(Fn):
        return Fn
    try:
        c.call(Fn.forward, torch.ones(2, dtype=torch.float64), what=f"{name}.forward(x)")
    except (c.Mistake, TypeError):
        return Fn   # a forward(ctx, x): the ordinary spelling of notebook 01, which autograd runs as it is
    return _Supplied(Fn, name)
