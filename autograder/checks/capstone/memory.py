"""The capstone's memory check (notebook 14): besides x itself, LogSumExp keeps only reduced-size tensors for
backward, read from the record the learner's process keeps of every call (`kept_for_backward`: what the node saved,
the graph itself, what else is alive)."""

from __future__ import annotations

import functools

import torch

from autograder.checks.behaviour import record as behaviour_record
from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.capstone.cases import MEMORY_EXAMPLE
from autograder.checks.capstone.rules import NAME, RULES, require_logsumexp, run


# ------------------------------------------------------------------------------------------------ memory

def kept_for_backward(LSE, x, dim, keepdim) -> dict:
    """LogSumExp.apply(x, dim, keepdim), an ordinary call (the learner's process records every call it serves the
    same way: `behaviour/record.py`), then what it keeps for backward, from that record: the output, the bytes of its
    storage and of x's, and every distinct storage kept for backward (what the node saved, what the graph packed and
    every tensor among the ctx's attributes, in containers too, and every other tensor the call made that is still
    alive): its bytes, whether it is x's or the output's, where on ctx it was found, and the tensor kept."""
    behaviour_record.warm_up_calls(LSE, lambda k: (x.detach().clone().requires_grad_(x.requires_grad), dim, keepdim))
    out = behaviour_record.ordinary_call(LSE, x, dim, keepdim)
    described = behaviour_record.recorded()["facts"]
    if not isinstance(out, torch.Tensor) or described is None:
        return {"output": out, "output_nbytes": 0, "x_nbytes": 0, "kept": [], "unreadable": []}
    return {"output": out, "output_nbytes": described["output_nbytes"], "x_nbytes": described["x_nbytes"],
            "kept": described["storages"], "unreadable": described["unreadable_shapes"]}


def _describe(kept: dict, x, dim: int):
    what = _what(kept, x, dim)
    return f"{what} kept as {kept['where']}" if kept.get("where") else what


def _what(kept: dict, x, dim: int):
    if kept["is_output"]:
        return "the output"
    t = kept["tensor"]
    if t.shape == x.shape:
        if bool(torch.allclose(t, x.detach())):
            return "a copy of x"
        if bool(torch.allclose(t, torch.softmax(x.detach(), dim))):
            return "softmax(x) (that is, exp(x - output))"
        if bool(torch.allclose(t, torch.exp(x.detach()))):
            return "exp(x)"
        return f"an x-sized tensor of shape {tuple(t.shape)}"
    return f"a tensor of shape {tuple(t.shape)}"


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def saved_memory(LSE, cases=MEMORY_EXAMPLE) -> None:
    """Besides x itself, LogSumExp keeps only reduced-size tensors (like the output) for backward: on inputs
    the value tests use too (no input is the memory test's alone). And what it keeps of x and of the output is
    kept where autograd's version counter guards it (Decision 5: ctx.save_for_backward, not a ctx attribute)."""
    require_logsumexp(LSE)
    _kept_guarded(LSE)
    for shape, dim, keepdim, seed in cases:
        x = c.randn(*shape, seed=seed)
        facts = run(functools.partial(kept_for_backward, LSE), x, dim, keepdim,
                    what=f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape}")
        c.require_own_node(facts["output"], LSE, NAME)
        if facts.get("unreadable"):
            c.fail("kept-unreadable",
                   f"LogSumExp.apply(x, {dim}, {keepdim}) keeps a tensor of shape {facts['unreadable'][0]} alive for "
                   "backward whose memory the grader cannot read (a tensor without storage of its own). Save x and "
                   "the output with ctx.save_for_backward(x, output) and recompute exp(x - output) in backward.")
        limit = facts["output_nbytes"]
        too_big = [kept for kept in facts["kept"] if not kept["is_x"] and kept["nbytes"] > limit]
        if too_big:
            total = sum(kept["nbytes"] for kept in too_big)
            names = ", ".join(_describe(kept, x, dim) for kept in too_big)
            c.fail("saves-too-much",
                   f"for x of shape {shape} (dim={dim}, keepdim={keepdim}), LogSumExp keeps {total} bytes for "
                   f"backward besides x ({names}), while x itself is {facts['x_nbytes']} bytes and the output "
                   f"{limit} bytes. Save x and the output with ctx.save_for_backward(x, output) and recompute "
                   "exp(x - output) in backward: one exp, no second x-sized tensor kept alive (notebook 08). "
                   "torch.logsumexp keeps exactly these two.")


def _kept_guarded(LSE) -> None:
    """x, then the output, changed in place after forward (as an optimiser step or an in-place activation would):
    backward raises autograd's in-place error or gives the gradient of the call left alone (common/kept_guarded.py).
    A call or backward that fails even left alone (the Nones, the values) is the other tests' to name."""
    x = c.randn(3, 4, seed=640, requires_grad=False)
    for kept, change in (("x", kept_guarded.change_inputs(0)), ("the output", kept_guarded.change_output(0))):
        with c.explained(f"{NAME}.apply(x, 1, True)", RULES):
            kept_guarded.require_kept_guarded(lambda t: LSE.apply(t, 1, True), [x], what=f"{NAME}.backward",
                                              kept=kept, change=change)
