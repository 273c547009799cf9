"""A backward that writes into its grad_output (grad_output /= n, grad_output.mul_(...), numpy's out=): autograd may
hand one gradient tensor to several consumers, and after `.sum()` it is one number broadcast to every element. A
gradient through `.sum()` meets such a write in the learner's process: torch refuses it there (a write into elements
that share one memory location), and a write that gets through (numpy, indexing) leaves a gradient that differs from
the same call's with a grad_output of its own. Both roads (in process, and through the sandbox, whose grad_outputs keep
their broadcast) see the same. What .sum() cannot show is read where backward runs, by a probe: a write into a
grad_output that is not broadcast, or that leaves it as it was (`require_grad_output_unshared`: another branch's
gradient changes), and a change of its shape alone (SumDim's unsqueeze_, shapes/sumdim.py). Every backward a check
calls gets a grad_output of its own (`as_sent`), as through the sandbox, so no write reaches the check's own tensor."""

from __future__ import annotations

from typing import Callable

import torch

from autograder.checks import common as c
from autograder.engine.shared import probe


def require_grad_output_kept(calls: Callable, what: str, name: str, names=()) -> None:
    """`calls()`: [(output, [leaves]), ...], fresh calls of the Function. Where a call's gradients from .sum()'s
    broadcast grad_output are refused or differ from the same call's from a grad_output of its own, backward wrote
    into grad_output: the values test's rule (inplace-grad-output). Judged only where the calls and their own
    backwards run (anything else is the test's cases to name)."""
    def gradients(broadcast: bool) -> list:
        return [g for out, ts in calls() for g in c.backward_grads(
            out.sum() if broadcast else out, ts, None if broadcast else torch.ones_like(out), what=f"{name}.backward",
            names=names)]
    try:
        alone = gradients(broadcast=False)
    except Exception:  # noqa: BLE001 (any failure of the calls alone: the cases of the test name it)
        return
    try:
        broadcast = gradients(broadcast=True)
    except c.Mistake as failed:
        if failed.code == "inplace-grad-output":
            raise
        broadcast = None
    except Exception:  # noqa: BLE001 (a write into the broadcast grad_output that broke backward itself)
        broadcast = None
    if broadcast is None or not all(_same(b, a) for b, a in zip(broadcast, alone)):
        c.fail("inplace-grad-output",
               f"{what}: {name}.backward wrote into grad_output in place. After .sum() grad_output is one number "
               "broadcast to every element (one memory location), and autograd may hand it to other consumers "
               "too: backward must not change grad_output, which belongs to autograd; build a new tensor from it "
               "(grad_output * ..., grad_output / ...) instead.")


def _same(broadcast, alone) -> bool:
    if not isinstance(broadcast, torch.Tensor) or not isinstance(alone, torch.Tensor):
        return broadcast is None and alone is None
    return broadcast.shape == alone.shape and bool(torch.allclose(broadcast, alone, rtol=1e-6, atol=1e-9,
                                                                   equal_nan=True))


def as_sent(grad_output):
    """A grad_output of backward's own, laid out as the judge's (a stride-0 broadcast stays one), as the sandbox hands
    every backward a decoded copy (engine/sandbox/codec.py): a backward that changes it in place (its values, or its
    shape alone: unsqueeze_) changes its own, never a tensor the check uses again, on both roads alike. One that
    requires grad (a gradient differentiated again) is passed as it is."""
    if not isinstance(grad_output, torch.Tensor) or grad_output.requires_grad or grad_output.layout != torch.strided:
        return grad_output
    plain = grad_output.detach()
    if not plain.is_contiguous() and plain.numel() > 0 and min(plain.stride(), default=0) >= 0:
        span = 1 + sum((n - 1) * s for n, s in zip(plain.shape, plain.stride()))
        return plain.as_strided((span,), (1,)).clone().as_strided(plain.shape, plain.stride())
    return plain.clone(memory_format=torch.contiguous_format)


def require_grad_output_unshared(Fn, args, name: str, output: int | None = None) -> None:
    """A backward that writes into grad_output changes what autograd handed other branches too; writes that leave a
    broadcast grad_output as it was (a 0-d loss's grad_output divided, a permutation of equal entries) show only
    there. Read in the learner's process (`shared_grad_output_facts`), so both roads see the same: the values test's
    rule (inplace-grad-output). `output`: which of Fn's outputs (None: Fn returns one tensor)."""
    facts = c.call(shared_grad_output_facts, Fn, tuple(args), output, what=f"{name}.backward")
    if isinstance(facts, dict) and facts.get("changed"):
        term = f"{name}.apply(...)" + ("" if output is None else f"[{output}]")
        c.fail("inplace-grad-output",
               f"the gradient of another term of a sum, {term} + w, came out changed: {name}.backward wrote into "
               "grad_output in place. Autograd handed the sum's one grad_output to both terms: backward must not "
               "change grad_output, which belongs to autograd; build a new tensor from it (grad_output * ..., "
               "grad_output / ...) instead.")


@probe
def shared_grad_output_facts(Fn, args, output) -> dict:
    """Probe: Fn.apply(*args) (its output `output`) + w * 1.0 (w's branch made first, so that Fn's backward runs
    first), with a grad_output of distinct entries that autograd hands to both terms: whether w's gradient is still
    that grad_output. Nothing is said when the call or its backward fails (the values test's cases name that)."""
    leaves = [a.detach().clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
              for a in args]
    try:
        first = Fn.apply(*leaves)
        first = first if output is None else first[output]
        w = torch.zeros(first.shape, dtype=first.dtype, requires_grad=True)
        weights = torch.arange(1.0, first.numel() + 1.0, dtype=first.dtype).reshape(first.shape)
        other = w * 1.0
        out = Fn.apply(*leaves)  # made after w's branch: its node runs first in backward
        out = out if output is None else out[output]
        wrt = [w] + [a for a in leaves if isinstance(a, torch.Tensor) and a.requires_grad]
        grad = torch.autograd.grad(out + other, wrt, weights.clone(), allow_unused=True)[0]
    except Exception:  # noqa: BLE001 (any failure of the call: the values test's cases name it)
        return {"changed": False}
    return {"changed": not torch.equal(grad, weights)}


class _OwnGradOutput(torch.autograd.Function):
    """The judge's identity on an output, whose backward hands the node before it a grad_output of its own (`as_sent`):
    torch's slow-mode gradcheck hands every Jacobian row's vjp one grad_output tensor it reuses, so a backward that
    changed that tensor (its shape: unsqueeze_) would change the rows after it, a mistake the values test names."""

    @staticmethod
    def forward(ctx, y):
        return y.clone()

    @staticmethod
    def backward(ctx, grad):
        return as_sent(grad)


def own_grad_output(fn):
    """`fn`, its (one, floating) output passed through `_OwnGradOutput`: each backward of it gets a grad_output of its
    own."""
    def wrapped(*args):
        out = fn(*args)
        if isinstance(out, torch.Tensor) and out.is_floating_point() and out.requires_grad:
            return _OwnGradOutput.apply(out)
        return out
    return wrapped
