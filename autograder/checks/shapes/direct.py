"""What notebook 03's checks share (see `shapes`): how a shape is printed, and a Function's forward and backward
called by hand with a `FakeCtx`, as autograd would call them minus its shape fix-ups, so that what backward
returns is seen before the engine sums a gradient down to its input's shape.
"""

from __future__ import annotations

import torch

from autograder.checks import common as c


def fmt(shape) -> str:
    """(3,) style, () for a scalar: how Python prints a shape tuple."""
    return str(tuple(int(n) for n in shape))


def direct_call(Fn, name: str, needs, args, grad_output):
    """Call forward then backward by hand with a FakeCtx (as autograd would, minus its shape fix-ups)."""
    ctx = c.FakeCtx(needs)
    with torch.no_grad():
        if c.uses_setup_context(Fn):
            out = c.call(Fn.forward, *args, what=f"{name}.forward")
            c.call(Fn.setup_context, ctx, tuple(args), out, what=f"{name}.setup_context")
        else:
            out = c.call(Fn.forward, ctx, *args, what=f"{name}.forward")
        grads = c.call(Fn.backward, ctx, grad_output, what=f"{name}.backward")
    if isinstance(grads, torch.Tensor) or grads is None:
        grads = (grads,)
    return out, tuple(grads)
