"""Reproducers of the torch.compile bugs registered in autograder/maintain/upstream_bugs.py: what Dynamo does with
a Function's ctx features and extra methods (notebook 11's "What compile keeps of a Function"). Each is small,
standalone, on the CPU, and returns True while the bug is there."""

from __future__ import annotations

import torch


def _sine_with_a_marked_jvp():
    """sin, whose jvp returns 100 * tangent (no derivative of sin): whether it ran shows in the tangent."""
    class SineMarkedJvp(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return torch.sin(x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * torch.cos(ctx.saved_tensors[0])

        @staticmethod
        def jvp(ctx, x_t):
            return 100 * x_t

    return SineMarkedJvp


def compile_drops_custom_jvp() -> bool:
    """torch.func.jvp inside torch.compile differentiates forward's operations (cos(x) * t) instead of calling
    the Function's jvp (100 * t), with no error; eager calls the jvp."""
    fn = _sine_with_a_marked_jvp()
    x, t = torch.tensor([0.5, 1.0]), torch.ones(2)
    eager = torch.func.jvp(fn.apply, (x,), (t,))[1]
    torch.compiler.reset()
    compiled = torch.compile(lambda u: torch.func.jvp(fn.apply, (u,), (t,))[1], backend="eager", fullgraph=True)(x)
    return torch.equal(eager, 100 * t) and torch.allclose(compiled, torch.cos(x))


def compile_ignores_set_materialize_grads() -> bool:
    """With ctx.set_materialize_grads(False), eager backward gets None for an unused output; under torch.compile
    it gets a tensor of zeros (the graph is traced with materialised gradients)."""
    class TwoOutputs(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return 2 * x, 3 * x

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return torch.full_like(grad_a, 7.0) if grad_b is None else 2 * grad_a + 3 * grad_b

    x = torch.randn(3, requires_grad=True)
    (eager,) = torch.autograd.grad(TwoOutputs.apply(x)[0].sum(), x)
    torch.compiler.reset()
    compiled_fn = torch.compile(lambda u: TwoOutputs.apply(u)[0].sum(), backend="aot_eager", fullgraph=True)
    (compiled,) = torch.autograd.grad(compiled_fn(x), x)
    return torch.equal(eager, torch.full((3,), 7.0)) and torch.equal(compiled, torch.full((3,), 2.0))
