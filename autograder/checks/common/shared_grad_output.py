"""A backward that writes into its grad_output (grad_output /= n, grad_output.mul_(...)): autograd may hand ONE
gradient tensor to several consumers (the two sides of `a + b`), and after `.sum()` it is one number broadcast. Two
calls of the Function whose outputs are added then summed get the same grad_output: a write into it raises there
(broadcast) or changes what the second backward reads. Everything runs in the learner's process, so both roads (in
process and through the sandbox) see the same."""

from __future__ import annotations

from typing import Callable

import torch

from autograder.checks import common as c


def _total(outputs):
    total = outputs[0] + outputs[1]
    return total.sum() if total.dim() else total


def require_grad_output_kept(two_calls: Callable, what: str, name: str, names=()) -> None:
    """`two_calls()`: [(output, [leaves]), (output, [leaves])], two fresh calls of the Function (same output shape).
    Where each call's gradients, each from a grad_output of its own, are not what the same calls give from one shared
    grad_output (or that raises), backward wrote into grad_output: the values test's rule (inplace-grad-output).
    Judged only where the calls and their own backwards run (anything else is the other checks' to name)."""
    def gradients(shared: bool) -> list:
        calls = two_calls()
        if shared:
            leaves = [t for _, ts in calls for t in ts]
            return list(c.backward_grads(_total([out for out, _ in calls]), leaves, what=f"{name}.backward",
                                         names=names))
        return [g for out, ts in calls
                for g in c.backward_grads(out, ts, torch.ones_like(out), what=f"{name}.backward", names=names)]
    try:
        alone = gradients(shared=False)
    except Exception:  # noqa: BLE001 (any failure of the calls alone: the cases of the test name it)
        return
    try:
        shared = gradients(shared=True)
    except c.Mistake as failed:
        if failed.code == "inplace-grad-output":
            raise
        shared = None
    except Exception:  # noqa: BLE001 (the second backward met a grad_output the first changed: its shape, say)
        shared = None
    if shared is None or not all(_same(s, a) for s, a in zip(shared, alone)):
        c.fail("inplace-grad-output",
               f"{what}: {name}.backward wrote into grad_output in place. Autograd handed both calls' backwards ONE "
               "grad_output tensor, and the second got it changed by the first (its values or its shape): backward "
               "must not change grad_output, which belongs to autograd; build a new tensor from it (grad_output * "
               "..., grad_output / ...) instead.")


def _same(shared, alone) -> bool:
    if not isinstance(shared, torch.Tensor) or not isinstance(alone, torch.Tensor):
        return shared is None and alone is None
    return shared.shape == alone.shape and bool(torch.allclose(shared, alone, rtol=1e-6, atol=1e-9, equal_nan=True))
