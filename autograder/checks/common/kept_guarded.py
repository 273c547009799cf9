"""A tensor the caller can still change (an input, or an output handed back), kept for backward as a plain ctx
attribute (`ctx.x = x`, in a list or a dict on ctx), escapes autograd's version counter: the caller changes it in place
after forward, and backward silently reads the changed value. Kept with `ctx.save_for_backward`, it is guarded: backward
raises autograd's in-place error instead. Judged by what backward does, never by reading the source: a Function that
keeps a tensor of its own (a clone, an intermediate that is neither input nor output) gives the gradient of the call
left alone, and is right too.

One message for every exercise, code `not-saved-for-backward`; each exercise's checks charge it to the rule that owns
its saving (or its values, where no rule does)."""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from autograder.engine.shared import fail


def _is_float(value) -> bool:
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def _outputs(result) -> tuple:
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def _gradients(apply: Callable, values: Sequence, change: Callable | None, differentiable: int, what: str):
    """The gradients of one call's output `differentiable` (weighted by ones) with respect to `values`' floating
    tensors, each handed to the call as a non-leaf (which a caller may change in place); `change(inputs, outputs)`
    runs under no_grad between forward and backward. Returns (gradients, the error backward raised or None)."""
    from autograder.checks import common as c

    leaves = [v.detach().clone().requires_grad_(True) if _is_float(v) else v for v in values]
    inputs = [leaf * 1.0 if _is_float(leaf) else leaf for leaf in leaves]
    outputs = _outputs(apply(*inputs))
    if change is not None:
        with torch.no_grad():
            change(inputs, outputs)
    out = outputs[differentiable]
    wrt = [leaf for leaf in leaves if _is_float(leaf)]
    grads: list = []
    error = c.inplace_error(lambda: grads.extend(torch.autograd.grad(out, wrt, torch.ones_like(out),
                                                                     allow_unused=True)), what)
    return grads, error


def change_inputs(*positions: int, by: float = 1.0) -> Callable:
    """A `change` that adds `by` in place to the inputs at `positions` (all floating inputs when none are named)."""
    def change(inputs, outputs):
        for i, value in enumerate(inputs):
            if _is_float(value) and (not positions or i in positions):
                value.add_(by)
    return change


def change_output(index: int = 0, by: float = 1.0) -> Callable:
    """A `change` that adds `by` in place to output `index` (a float output) or sets it to zeros (an integer one)."""
    def change(inputs, outputs):
        out = outputs[index]
        if out.is_floating_point():
            out.add_(by)
        else:
            out.zero_()
    return change


def require_kept_guarded(apply: Callable, values: Sequence, *, what: str, kept: str = "x",
                         change: Callable | None = None, differentiable: int = 0) -> None:
    """`apply(*inputs)` (the learner's Function) called on `values` (floating tensors become differentiable
    non-leaves; anything else passes as is), then `change` (default: every floating input += 1) in place after forward:
    backward must raise autograd's in-place error or give exactly the gradient of the call left alone. `kept` names the
    tensor for the learner ("x", "the output"). A call or backward that fails even left alone is judged by other
    checks: nothing is said here."""
    change = change or change_inputs()
    try:
        control, _ = _gradients(apply, values, None, differentiable, what)
    except Exception:  # noqa: BLE001 (any failure of the plain call: the values' test names it)
        return
    grads, error = _gradients(apply, values, change, differentiable, what)
    if error is not None:
        return
    if len(grads) == len(control) and all(
            (g is None and k is None) or (g is not None and k is not None and g.shape == k.shape
                                          and bool(torch.allclose(g, k, rtol=1e-10, atol=1e-12, equal_nan=True)))
            for g, k in zip(grads, control)):
        return
    fail("not-saved-for-backward",
         f"changing {kept} in place after forward went unnoticed, and backward used the changed value: keep {kept} "
         "for backward with ctx.save_for_backward(...) (not as a ctx attribute, not in a list on ctx), so that "
         "autograd's version counter catches the change.")
