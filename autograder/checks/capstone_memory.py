"""The capstone's memory check (notebook 14): besides x itself, LogSumExp keeps only reduced-size tensors for
backward, read in the learner's process by the probe `kept_for_backward` (saved-tensor hooks, and the graph itself)."""

from __future__ import annotations

import functools

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.capstone_cases import MEMORY_EXAMPLE
from autograder.checks.capstone_rules import NAME, require_logsumexp, run


# ------------------------------------------------------------------------------------------------ memory

def _storage(t):
    return t.untyped_storage()


@c.probe
def kept_for_backward(LSE, x, dim, keepdim) -> dict:
    """In the learner's process (the judge's graph has one opaque node per call): LogSumExp.apply(x, dim, keepdim)
    with saved-tensor hooks on. The output (with its grad_fn's name), the bytes of its storage and of x's, and
    every distinct storage kept for backward (seen by the hook, or read off the graph: what its node packed and
    every tensor among the ctx's attributes, in containers too): its bytes, whether it is x's or the output's,
    where on ctx it was found, and the tensor kept."""
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out, made = behaviour.alive_after(lambda: LSE.apply(x, dim, keepdim))
    if not isinstance(out, torch.Tensor):
        return {"output": out}
    x_key, out_key = _storage(x).data_ptr(), _storage(out).data_ptr()
    kept, unreadable = {}, []
    # What the hooks saw, then the graph itself (what it packed, and the ctx's attributes, containers included),
    # then every other tensor the call made that is still alive (in a container at any depth, a deque, a global).
    alive = [("alive", t) for t in made if t is not out]
    for where, t in [("saved", t) for t in saved] + behaviour.kept_by_graph([out]) + alive:
        if where == "alive" and behaviour.storage_of(t) == (id(t), 0):
            unreadable.append(tuple(t.shape))
            continue
        key, nbytes = behaviour.storage_of(t)
        if key not in kept:
            kept[key] = {"nbytes": nbytes, "is_x": key == x_key, "is_output": key == out_key,
                         "tensor": t.detach().clone(), "where": where if where.startswith("ctx.") else ""}
    return {"output": out, "output_nbytes": _storage(out).nbytes(), "x_nbytes": _storage(x).nbytes(),
            "kept": list(kept.values()), "unreadable": unreadable}


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


def saved_memory(LSE, cases=MEMORY_EXAMPLE) -> None:
    """Besides x itself, LogSumExp keeps only reduced-size tensors (like the output) for backward: on inputs
    the value tests use too (no input is the memory test's alone)."""
    require_logsumexp(LSE)
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
