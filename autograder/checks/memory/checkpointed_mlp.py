"""Checks for notebook 08's `checkpointed_mlp` (see `memory`).

`checkpointed_mlp(x, layers)` applies `h = silu(layer(h))` for each nn.Linear in `layers`, each block wrapped in
`torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`.

Its values and gradients are the judge's own: its layers are `JudgeLinear`s (`memory/layers.py`). What only the
learner's process can observe is its memory: one probe (`run_checkpointed`) builds real nn.Linear layers holding
the weights the judge drew from (widths, seed), measures saved bytes twice (with a pack hook, which sees every
tensor autograd keeps outside a checkpointed region and outside any hooks of the answer's own; and on the graph
itself after forward, `behaviour.kept_by_graph`, from which no hook of the answer's can hide anything), counts the
layers' calls (a block counts as recomputed when its layer runs during backward on the input it had in forward)
and records checkpoint's warnings. Every verdict is reached here, against references computed from the same
(widths, seed).
"""

from __future__ import annotations

import warnings

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule, literal
from autograder.checks.memory.layers import (
    parameter_keys, parameters_of, seeded_weights, distinct_bytes, judge_layers, layers_from, make_layers, plain_mlp,
    record_saved,
)


def _warm_up_checkpoint() -> None:
    """Run torch.utils.checkpoint once (both variants) at import: its first call fills lazy module state
    (DefaultDeviceType._default_device_type), which must not look like a change made by the learner's code
    to a grader that snapshots PyTorch after importing the checks."""
    from torch.utils.checkpoint import checkpoint

    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for reentrant in (False, True):
            checkpoint(torch.sin, x, use_reentrant=reentrant).sum().backward()


_warm_up_checkpoint()

MLP = "checkpointed_mlp"
RECOMPUTE_HINT = ("The function that checkpoint re-runs in backward must compute exactly what it computed in "
                  "forward. A lambda written inside the loop (lambda t: F.silu(layer(t))) looks `layer` up only "
                  "when it runs, so in backward every block recomputes with the LAST layer: bind it now, with "
                  "a default argument (lambda t, layer=layer: ...) or functools.partial.")

# What the learner's call of checkpointed_mlp(x, layers) may raise.
CALL_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("crashes", None, "{what} raised RuntimeError: {line}", types=(RuntimeError,)),
)

# What backward through the learner's graph may raise.
BACKWARD_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("reentrant", "use_reentrant=True",
         MLP + " used the reentrant checkpoint, which cannot even be differentiated with torch.autograd.grad "
         "(\"When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad()\"). Pass "
         "use_reentrant=False (omitting it also gives the reentrant variant on torch 2.13).", types=(RuntimeError,)),
    Rule("no-graph", error="no-graph", message=
         "the output of " + MLP + " is not connected to x or to the layers' parameters ({line}). Do not detach h "
         "or run the blocks under torch.no_grad().", types=(RuntimeError,)),
    Rule("bad-recompute", None, "backward through " + MLP + " failed while recomputing a block ({line}). "
         + literal(RECOMPUTE_HINT), types=(RuntimeError,)),
)


def _call_mlp(checkpointed_mlp, x, layers):
    """The learner's output for (x, layers); a failed call or a result that is not a tensor is a mistake."""
    if not callable(checkpointed_mlp):
        c.fail("not-defined", f"`{MLP}` must be a function checkpointed_mlp(x, layers).")
    with c.explained(f"{MLP}(x, layers)", CALL_RULES):
        out = c.call(checkpointed_mlp, x, layers, what=f"{MLP}(x, layers)")
    if not isinstance(out, torch.Tensor):
        c.fail("not-a-tensor", f"{MLP}(x, layers) should return a tensor, got {type(out).__name__}.")
    return out


def _run_mlp(checkpointed_mlp, x, widths, seed, grads=True):
    """(the learner's output, the gradients of out.sum() with respect to x (if it requires grad) and every
    parameter, or None when the output requires no grad), for layers built from (widths, seed). With
    grads=False, no backward: () stands for the gradients of an output that requires grad.

    Computed here, through the call, on JudgeLinear layers. An answer that needs real nn.Module layers (it puts
    them in an nn.Sequential, say), which cannot cross, runs in the learner's process instead, through the probe
    `run_checkpointed` with nn.Linear layers of the same weights."""
    layers = judge_layers(widths, seed)
    inputs = ([x] if x.requires_grad else []) + parameters_of(layers)  # as passed: the call replaces a layer's state
    try:
        out = _call_mlp(checkpointed_mlp, x, layers)
    except (TypeError, AttributeError) as error:
        if "JudgeLinear" not in str(error):
            raise
        return _run_mlp_there(checkpointed_mlp, x, widths, seed, grads)
    if not out.requires_grad or not grads:
        return out, (() if out.requires_grad else None)
    # .backward() and the leaves' .grad, as a training loop would (and as the learner's side does when the call
    # crosses): the reentrant checkpoint refuses torch.autograd.grad, so that road would cost this test too.
    with c.explained(MLP, BACKWARD_RULES):
        out.sum().backward()
    return out, tuple(t.grad for t in inputs)


def _run_mlp_there(checkpointed_mlp, x, widths, seed, grads=True):
    """`_run_mlp` in the learner's process, on nn.Linear layers (see `run_checkpointed`)."""
    facts = _probe_facts(checkpointed_mlp, x, widths, seed, all_grads=True)
    if not facts["requires_grad"] or not grads:
        return facts["out"], (() if facts["requires_grad"] else None)
    if "grad_error" in facts:
        c.explain(_as_error(facts["grad_error"]), MLP, BACKWARD_RULES)
    return facts["out"], facts["grads"]


def _compare(out, got, x, widths, seed, what):
    """The learner's output and gradients (`got`, None if the output requires no grad) against the plain
    composition over the same weights."""
    ref_layers = judge_layers(widths, seed)
    ref_x = x.detach().clone().requires_grad_(x.requires_grad)
    ref_out = plain_mlp(ref_x, ref_layers)
    c.require_close(out, ref_out, f"{MLP}(x, layers){what}", "wrong-forward",
                    "each block is h = F.silu(layer(h)), applied in the order of `layers`.")
    if got is None:
        c.fail("no-graph", f"the output of {MLP}{what} does not require grad: it is not connected to x or to the "
                           "layers' parameters. Do not detach h or run the blocks under torch.no_grad().")
    names = (["x"] if x.requires_grad else []) + [
        f"layers[{i}].{n}" for i in range(len(ref_layers)) for n in ("weight", "bias")]
    expected = torch.autograd.grad(ref_out.sum(), ([ref_x] if x.requires_grad else []) + parameters_of(ref_layers))
    missing = [name for name, g in zip(names, got) if g is None]
    if missing:
        c.fail("graph-cut",
               f"{', '.join(missing)} got no gradient from {MLP}{what}: something cut the graph. Do not detach "
               "the block inputs (h.detach(), h.data) or run blocks under no_grad: checkpoint keeps the graph "
               "connected by itself.")
    for name, g, e in zip(names, got, expected):
        if not bool(torch.allclose(g, e, rtol=1e-6, atol=1e-8)):
            worst = (g - e).abs().max().item()
            c.fail("wrong-gradient",
                   f"the gradient of {name} differs from the plain composition (largest error {worst:.3g}) although "
                   f"checkpointing must not change any gradient. {RECOMPUTE_HINT}")


# (widths, batch, seed): the visible case, then several equal widths (which hide a late-bound layer from shape
# checks) and other sizes.
MLP_VALUE_CASES = (((6, 8, 8, 5), 4, 0), ((5, 5, 5, 5, 5), 3, 1), ((3, 7, 2), 3, 2), ((4, 4), 3, 3),
                   ((6, 9, 6, 9, 3), 3, 4))


def mlp_values(checkpointed_mlp, cases=MLP_VALUE_CASES[:1]) -> None:
    """Values and every gradient equal the plain composition."""
    c.require_self_contained(checkpointed_mlp, MLP)
    for widths, batch, seed in cases:
        x = c.randn(batch, widths[0], seed=seed + 100)
        out, got = _run_mlp(checkpointed_mlp, x, widths, seed)
        _compare(out, got, x, widths, seed, "" if len(cases) == 1 else f" for widths {widths}")


# (widths, batch, seed) of an input that does not require grad.
MLP_FROZEN_CASES = (((3, 4, 2), 2, 0), ((5, 7, 7, 3), 4, 8), ((4, 4, 4), 3, 9))


def mlp_frozen_input(checkpointed_mlp, cases=MLP_FROZEN_CASES[:1]) -> None:
    """With an input that does not require grad (plain data), the parameters still get their gradients, the same as
    for that input requiring grad; and use_reentrant is passed (omitted, torch 2.13 takes the reentrant variant)."""
    c.require_self_contained(checkpointed_mlp, MLP)
    for widths, batch, seed in cases:
        x = c.randn(batch, widths[0], seed=seed + 100, requires_grad=False)
        with _waits_for_values("what plain data changes in the parameters' gradients"):
            _require_use_reentrant_passed(checkpointed_mlp, x.clone(), widths, seed)  # a copy per call: a call that
        with _waits_for_values("what plain data changes in the parameters' gradients"):  # flags x leaks no further
            out, got = _run_mlp(checkpointed_mlp, x.clone(), widths, seed)
        if got is None:
            probe = c.randn(batch, widths[0], seed=seed + 101)
            if _run_mlp(checkpointed_mlp, probe, widths, seed, grads=False)[1] is None:
                with _waits_for_values("what plain data changes in the parameters' gradients"):
                    c.fail("graph-cut", f"the output of {MLP} does not require grad at all: something cut the "
                                        "graph. Do not detach h or run the blocks under torch.no_grad(): checkpoint "
                                        "already avoids keeping the activations.")
            c.fail("reentrant-loses-grads",
                   f"with an input x that does not require grad, the output of {MLP} does not require grad, so the "
                   "layers' parameters get no gradient. That is what the reentrant checkpoint does "
                   "(use_reentrant=True, or omitting it): pass use_reentrant=False.")
        _require_as_with_live_input(checkpointed_mlp, out, got, x, widths, seed)


def _require_use_reentrant_passed(checkpointed_mlp, x, widths, seed) -> None:
    """No warning that use_reentrant was left out (read in the learner's process, `run_checkpointed`): on torch 2.13
    that silently picks the reentrant variant, which loses the parameters' gradients for plain data."""
    facts = _probe_facts(checkpointed_mlp, x, widths, seed)
    if facts.get("input_flagged"):
        c.fail("reentrant-loses-grads",
               f"{MLP} made the caller's x require grad (x.requires_grad_()): plain data must stay plain data. The "
               "reentrant checkpoint needs an input that requires grad; the non-reentrant one does not: pass "
               "use_reentrant=False and leave x as it is.")
    reentrant = facts["reentrant_warnings"]
    if reentrant:
        c.fail("use-reentrant-omitted",
               f"torch.utils.checkpoint warned: \"{reentrant[0][:110]}...\". Pass use_reentrant=False "
               "explicitly: when you omit it, torch 2.13 still uses the old reentrant variant, which gives the "
               "parameters no gradient when x does not require grad.")


def _require_as_with_live_input(checkpointed_mlp, out, got, x, widths, seed) -> None:
    """The output and the parameters' gradients for a frozen x are what the answer itself gives for the same x
    requiring grad: whether those are right is the values test's, this test's is that plain data changes nothing."""
    live = x.detach().clone().requires_grad_(True)
    with _waits_for_values("what plain data changes in the parameters' gradients"):
        live_out, live_got = _run_mlp(checkpointed_mlp, live, widths, seed)
    what = " with an input that does not require grad"
    c.require_close(out, live_out, f"{MLP}(x, layers){what}", "wrong-forward",
                    "the output must not depend on whether x requires grad.")
    names = [f"layers[{i}].{n}" for i in range(len(widths) - 1) for n in ("weight", "bias")]
    expected = live_got[1:] if live_got is not None else [None] * len(names)
    lost = [name for name, g, e in zip(names, got, expected) if g is None and e is not None]
    if lost:
        c.fail("reentrant-loses-grads",
               f"{', '.join(lost)} got no gradient from {MLP}{what}, although they get one when x requires grad. "
               "That is what the reentrant checkpoint does (use_reentrant=True, or omitting it): pass "
               "use_reentrant=False.")
    for name, g, e in zip(names, got, expected):
        if g is not None and e is not None and not bool(torch.allclose(g, e, rtol=1e-6, atol=1e-8)):
            c.fail("wrong-gradient", f"the gradient of {name}{what} differs from the one it gets when x requires "
                                     f"grad (largest error {(g - e).abs().max().item():.3g}). {RECOMPUTE_HINT}")


def _error_facts(error: BaseException) -> dict:
    """An error raised by the learner's code, as data: which of the two kinds the checks tell apart, and its text."""
    kind = "NotImplementedError" if isinstance(error, NotImplementedError) else "RuntimeError"
    return {"kind": kind, "message": str(error)[:4000]}


def _as_error(facts: dict) -> BaseException:
    """The error a probe reported, rebuilt here so that the Rule tables can read it."""
    return (NotImplementedError if facts["kind"] == "NotImplementedError" else RuntimeError)(facts["message"])


@c.probe
def run_checkpointed(checkpointed_mlp, x, weights, all_grads: bool = False) -> dict:
    """Probe: build nn.Linear layers holding `weights` (the judge draws them), call checkpointed_mlp(x, layers) under
    a pack hook, with forward pre-hooks counting each layer's calls, read the graph after forward, then run
    out.sum().backward() and read the .grad of x (with `all_grads`, and of every parameter).

    Facts: the error raised by the call or by backward (kind, text), the output's type, value and requires_grad,
    the use_reentrant warnings' text, the gradients, the bytes of activations saved (distinct storages,
    parameters left out; by the pack hook and on the graph), each layer's call count after forward and after
    backward, and whether each layer ran again during backward on an input it had in forward (what a recompute
    does). A layer counts only when it is called: an answer's own F.linear(h, layer.weight, layer.bias) is not
    seen (torch function modes and subclasses do not reach the recomputation inside backward).

    The weights cross by value: no seed reaches the learner's process."""
    layers = layers_from(weights)
    calls = [0] * len(layers)
    seen_inputs: list = [[] for _ in layers]  # (during backward?, the input) of each call of each layer
    backward_order: list = []  # which layer each call during backward was, in order

    def count(k, inputs):
        calls[k] += 1
        if torch._C._current_graph_task_id() != -1:
            backward_order.append(k)
        if inputs and isinstance(inputs[0], torch.Tensor):
            seen_inputs[k].append((torch._C._current_graph_task_id() != -1, inputs[0].detach().clone()))

    for k, layer in enumerate(layers):
        # Counted as the call starts: checkpoint stops a recompute as soon as it has every saved tensor back, so a
        # block ending in the Linear (no SiLU after it, which is the values test's) never reaches a forward hook.
        layer.register_forward_pre_hook(lambda m, i, k=k: count(k, i))
    facts: dict = {}
    rng_state = torch.get_rng_state()
    flagged = bool(x.requires_grad)
    warned: list = []  # the text of every warning the call gives (catch_warnings restores showwarning)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *details, **more: warned.append(str(message))
        try:
            out, saved = record_saved(lambda: checkpointed_mlp(x, list(layers)))
        except (NotImplementedError, RuntimeError) as error:
            facts["raised"] = _error_facts(error)
            return facts
    facts["reentrant_warnings"] = [text[:1000] for text in warned if "use_reentrant" in text]
    facts["input_flagged"] = bool(x.requires_grad) and not flagged  # the call made the caller's x require grad
    if not isinstance(out, torch.Tensor):
        facts["type"] = type(out).__name__
        return facts
    facts["saved_bytes"] = distinct_bytes(saved, exclude=parameter_keys(layers))
    # Read off the graph itself: hooks of the answer's own, which win over the pack hook above, hide nothing.
    # The CPU RNG state the reentrant checkpoint keeps on its ctx (to replay dropout) is no activation: a tensor equal
    # to it carries nothing of the answer's.
    kept = [t for _, t in behaviour.kept_by_graph([out])
            if not (t.dtype == torch.uint8 and t.shape == rng_state.shape and torch.equal(t, rng_state))]
    facts["graph_bytes"] = distinct_bytes(kept, exclude=parameter_keys(layers))
    facts["forward_calls"] = list(calls)
    facts["out"], facts["requires_grad"] = out.detach(), bool(out.requires_grad)
    if out.requires_grad:
        inputs = ([x] if x.requires_grad else []) + (parameters_of(layers) if all_grads else [])
        try:  # .backward() and the leaves' .grad, as a training loop would: the reentrant checkpoint refuses
            out.sum().backward()  # torch.autograd.grad, and what it loses is the frozen_input test's, not memory's
            facts["grads"] = [t.grad for t in inputs]
        except (NotImplementedError, RuntimeError) as error:
            facts["grad_error"] = _error_facts(error)
    facts["calls"] = list(calls)
    facts["backward_order"] = list(backward_order)
    facts["recomputed"] = [any(during and any(torch.equal(t, f) for was, f in seen if not was) for during, t in seen)
                           for seen in seen_inputs]
    return facts


def _probe_facts(checkpointed_mlp, x, widths, seed, all_grads=False) -> dict:
    """`run_checkpointed`'s facts; a call that fails or returns no tensor is a mistake."""
    if not callable(checkpointed_mlp):
        c.fail("not-defined", f"`{MLP}` must be a function checkpointed_mlp(x, layers).")
    facts = run_checkpointed(checkpointed_mlp, x, seeded_weights(widths, seed), all_grads=all_grads)
    if "raised" in facts:
        c.explain(_as_error(facts["raised"]), f"{MLP}(x, layers)", CALL_RULES)
    if "type" in facts:
        c.fail("not-a-tensor", f"{MLP}(x, layers) should return a tensor, got {facts['type']}.")
    return facts


# (widths, batch, seed): the visible case, then more widths, those of the other tests among them (no input is
# the memory test's alone).
MLP_MEMORY_CASES = (((32, 64, 64, 32), 16, 5), ((16, 48, 48, 48, 16), 8, 6), ((10, 20, 5), 12, 7),
                    ((6, 8, 8, 5), 4, 0), ((5, 5, 5, 5, 5), 3, 1))


def mlp_memory(checkpointed_mlp, cases=MLP_MEMORY_CASES[:1]) -> None:
    """Saved activations (measured with saved_tensors_hooks, and read off the graph) are only the blocks' inputs, and
    every block is recomputed in backward, on its input (which checkpoint variant does it is frozen_input's)."""
    for widths, batch, seed in cases:
        with _waits_for_values("what checkpoint keeps and recomputes for backward"):
            _mlp_memory(checkpointed_mlp, widths, batch, seed)


# The memory and frozen_input rules `require` values (tests/zoo/rules.toml): their properties are those of a backward
# through the whole graph, which a cut graph or a failed recompute does not have.
PREREQUISITE_CODES = ("graph-cut", "no-graph", "bad-recompute", "crashes")  # crashes: a call that fails


def _waits_for_values(what: str):
    return c.waits_for("the values test's rule (a backward through the whole graph, right gradients)",
                       PREREQUISITE_CODES, what)


def _mlp_memory(checkpointed_mlp, widths, batch, seed) -> None:
    layers = make_layers(widths, seed)
    x = c.randn(batch, widths[0], seed=seed + 100)
    _, plain_saved = record_saved(lambda: plain_mlp(x, layers))
    plain = distinct_bytes(plain_saved, exclude=parameter_keys(layers))
    budget = batch * sum(widths[:-1]) * x.element_size()
    facts = _probe_facts(checkpointed_mlp, x, widths, seed)
    if "grad_error" in facts:
        c.explain(_as_error(facts["grad_error"]), MLP, BACKWARD_RULES)
    measured = max(facts["saved_bytes"], facts["graph_bytes"])
    if measured > budget:
        c.fail("saves-too-much",
               f"{MLP} kept {measured} bytes of activations for backward (the plain composition keeps {plain}; "
               f"checkpointing every block should keep only the blocks' inputs, {budget} bytes). Put the whole "
               "block, Linear AND SiLU, inside the function you pass to torch.utils.checkpoint.checkpoint, "
               "for every layer.")
    if not facts.get("grads") or facts["grads"][0] is None:
        c.fail("graph-cut", f"x got no gradient from {MLP}: something cut the graph. Do not detach the block "
                            "inputs (h.detach(), h.data) or run blocks under no_grad.")
    forward_calls = facts["forward_calls"]
    used = [k for k, f in enumerate(forward_calls) if f >= 1]  # a layer forward never ran: the values test's rule
    again = [facts["calls"][k] - forward_calls[k] for k in used]
    recomputed = [facts["recomputed"][k] for k in used]
    if all(a >= 1 for a in again) and not all(recomputed):
        which = [used[i] + 1 for i, done in enumerate(recomputed) if not done]
        c.fail("no-recompute",
               f"during backward, layers {which} (counted from 1) ran, but never on the input they had in forward: "
               "that is not a recompute of the block. Wrap every block with torch.utils.checkpoint.checkpoint("
               "block, h, use_reentrant=False), which re-runs it on its saved input.")
    order = facts.get("backward_order", [])
    if all(a >= 1 for a in again) and any(later > earlier for earlier, later in zip(order, order[1:])):
        c.fail("blocks-recomputed-together",
               f"during backward the layers ran again in the order {[k + 1 for k in order]} (counted from 1): "
               "several blocks were recomputed together, so their activations are all alive again at once. "
               "Give every block its own checkpoint: backward then recomputes one block at a time, the last first.")
    if any(a < 1 for a in again):
        c.fail("no-recompute",
               f"the layers ran {forward_calls} times in forward and {again} times during backward: checkpointing "
               "re-runs each block in backward. Wrap every block with "
               "torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False).")
