"""Checks for notebook 08 (trading memory for compute).

- `RecomputeSiLU.apply(x)` returns x * sigmoid(x), saves only x and recomputes the sigmoid in backward.
- `checkpointed_mlp(x, layers)` applies `h = silu(layer(h))` for each nn.Linear in `layers`, each block
  wrapped in `torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`.

Saved memory is measured twice: with `torch.autograd.graph.saved_tensors_hooks` (the pack hook sees every tensor
autograd keeps for backward, outside a checkpointed region, where checkpoint's own hooks take over, and outside
any hooks of the answer's own, which win in the same way), and on the graph itself after forward
(`behaviour.kept_by_graph`: every saved tensor as it was packed, and every tensor on a Function's ctx), which no
hook of the answer's can hide anything from. A block counts as recomputed when its layer runs during backward on
the input it had in forward.

Hooks, forward hooks and nn.Linear layers must live where the learner's code runs, so two probes gather the
facts there (`silu_saved`: what RecomputeSiLU saved; `run_checkpointed`: the layers built from (widths, seed),
the output, the gradients, the saved bytes, the layers' call counts, the warnings). Every verdict is reached
here: references are computed from the same (widths, seed) and inputs, and compared with those facts.
"""

from __future__ import annotations

import warnings

import torch

from autograder.checks import behaviour
from autograder.checks import common as c


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

SILU = "RecomputeSiLU"
MLP = "checkpointed_mlp"
SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
SILU_HINT = ("with s = sigmoid(x), d/dx [x * s] = s + x * s * (1 - s); backward returns grad_output times that "
             "(do not forget the x * s * (1 - s) term).")


# --------------------------------------------------------------------------------------------- helpers

def record_saved(fn):
    """Run `fn()` under a pack hook; return (its output, the list of tensors autograd saved for backward)."""
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = fn()
    return out, saved


def storage_key(tensor) -> int:
    return tensor.untyped_storage().data_ptr()


def distinct_bytes(tensors, exclude=()) -> int:
    """Bytes of the distinct storages behind `tensors` (storages in `exclude`, e.g. parameters, skipped)."""
    seen = {}
    skip = set(exclude)
    for t in tensors:
        key = storage_key(t)
        if key not in skip:
            seen[key] = t.untyped_storage().nbytes()
    return sum(seen.values())


def _describe(tensor, x, out, known: str = "") -> str:
    """What a saved tensor is, in the learner's words. `known` is what the probe saw of its storage
    ("x", "the output", or "" when it is neither)."""
    if known:
        return known
    key = storage_key(tensor)
    if x is not None and key == storage_key(x):
        return "x"
    if out is not None and isinstance(out, torch.Tensor) and key == storage_key(out):
        return "the output"
    if x is not None and tensor.shape == x.shape and tensor.dtype == x.dtype:
        if bool(torch.allclose(tensor.detach(), torch.sigmoid(x.detach()))):
            return "sigmoid(x)"
        if bool(torch.allclose(tensor.detach(), x.detach())):
            return "a copy of x"
    return f"a tensor of shape {tuple(tensor.shape)}"


# ---------------------------------------------------------------------------------------- RecomputeSiLU

def _silu_ref(x):
    return torch.nn.functional.silu(x.detach())


def _silu_grad_ref(x):
    s = torch.sigmoid(x.detach())
    return s * (1 + x.detach() * (1 - s))


def silu_values(RecomputeSiLU) -> None:
    """Visible: forward values and the gradient on a small example."""
    c.require_function(RecomputeSiLU, SILU)
    c.require_self_contained(RecomputeSiLU, SILU)
    x = torch.tensor([-3.0, -0.5, 0.0, 1.0, 2.5], dtype=torch.float64, requires_grad=True)
    y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
    c.require_close(y, _silu_ref(x), "RecomputeSiLU.apply(x)", "wrong-forward",
                    "forward should return x * torch.sigmoid(x).")
    (grad,) = c.backward_grads(y, [x], what="RecomputeSiLU.backward")
    if grad is None:
        c.fail("no-gradient", "RecomputeSiLU.apply(x) gave x no gradient: backward must return the gradient of x.")
    c.require_close(grad, _silu_grad_ref(x), "the gradient of RecomputeSiLU.apply(x).sum()", "wrong-derivative",
                    SILU_HINT)


def silu_dtype_and_extremes(RecomputeSiLU) -> None:
    """Hidden: float32 stays float32, and large |x| gives finite, right values and gradients."""
    c.require_function(RecomputeSiLU, SILU)
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([-100.0, -40.0, -5.0, 0.3, 5.0, 40.0, 100.0], dtype=dtype, requires_grad=True)
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        if not isinstance(y, torch.Tensor):
            c.fail("not-a-tensor", f"RecomputeSiLU.apply(x) should return a tensor, got {type(y).__name__}.")
        if y.dtype != dtype:
            c.fail("wrong-dtype", f"for a {dtype} input RecomputeSiLU.apply returned {y.dtype}: compute in the "
                                  "input's dtype (do not convert).")
        (grad,) = c.backward_grads(y, [x], what="RecomputeSiLU.backward")
        if grad is None:
            c.fail("no-gradient", "RecomputeSiLU.apply(x) gave x no gradient.")
        if not bool(torch.isfinite(y).all()) or not bool(torch.isfinite(grad).all()):
            c.fail("unstable", f"RecomputeSiLU gives inf or nan for large |x| ({dtype}, x = ±40, ±100): "
                               "use torch.sigmoid(x) rather than exp(x) / (1 + exp(x)), which overflows.")
        c.require_close(y, _silu_ref(x), f"RecomputeSiLU.apply(x) at large |x| ({dtype})", "wrong-forward",
                        rtol=1e-5, atol=1e-6)
        c.require_close(grad, _silu_grad_ref(x), f"the gradient at large |x| ({dtype})", "wrong-derivative",
                        SILU_HINT, rtol=1e-5, atol=1e-6)


def silu_gradcheck(RecomputeSiLU, seeds=(0, 1, 2), shapes=SHAPES) -> None:
    """float64 finite differences over several shapes and seeds."""
    c.require_function(RecomputeSiLU, SILU)
    for seed in seeds:
        for shape in shapes:
            x = c.randn(*shape, seed=seed, scale=2.0)
            c.gradcheck(RecomputeSiLU.apply, (x,), f"RecomputeSiLU on shape {shape}", hint=SILU_HINT)


def silu_graph(RecomputeSiLU, seeds=(5, 15)) -> None:
    """.apply records RecomputeSiLU's own node, and backward multiplies by grad_output."""
    c.require_function(RecomputeSiLU, SILU)
    for seed in seeds:
        x = c.randn(2, 3, seed=seed)
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        c.require_own_node(y, RecomputeSiLU, SILU)
        weights = c.randn(2, 3, seed=seed + 1, requires_grad=False)
        (grad,) = c.backward_grads(y, [x], weights, what="RecomputeSiLU.backward")
        c.require_close(grad, weights * _silu_grad_ref(x), "the gradient with a random grad_output",
                        "ignores-grad-output", "multiply by grad_output: backward receives dLoss/dy and must "
                                               "return grad_output * dy/dx.")


@c.probe
def silu_saved(RecomputeSiLU, x) -> dict:
    """Probe: run RecomputeSiLU.apply(x) under a pack hook. Facts: the output, x before and after the call, and for
    each tensor autograd saved its values, which distinct storage it lives in (numbered in order of first
    appearance), that storage's size in bytes, and whether that storage is x's or the output's."""
    before = x.detach().clone()
    out, saved = record_saved(lambda: RecomputeSiLU.apply(x))
    owners = {storage_key(x): "x"}
    if isinstance(out, torch.Tensor):
        owners.setdefault(storage_key(out), "the output")
    storages: dict = {}
    entries = []
    for tensor in saved:
        key = storage_key(tensor)
        entries.append({"value": tensor.detach(), "storage": storages.setdefault(key, len(storages)),
                        "nbytes": tensor.untyped_storage().nbytes(), "is": owners.get(key, "")})
    return {"out": out, "saved": entries, "x_before": before, "x_after": x.detach()}


def silu_saves_only_x(RecomputeSiLU, shape=(2, 3, 4), seed=7) -> None:
    """Visible: measured with saved_tensors_hooks, the Function saves exactly one tensor: x."""
    c.require_function(RecomputeSiLU, SILU)
    x = c.randn(*shape, seed=seed)
    facts = c.call(silu_saved, RecomputeSiLU, x, what="RecomputeSiLU.forward")
    c._require_inputs_unchanged([(facts["x_after"], facts["x_before"])], "RecomputeSiLU.forward")
    c.require_own_node(facts["out"], RecomputeSiLU, SILU)
    saved = facts["saved"]
    if not saved:
        c.fail("nothing-saved",
               "RecomputeSiLU saved no tensor with ctx.save_for_backward: save x (only x) and read it back in "
               "backward with ctx.saved_tensors. A tensor stored as a plain ctx attribute is invisible to "
               "autograd's bookkeeping.")
    names = [_describe(entry["value"], x, None, entry["is"]) for entry in saved]
    storages = {entry["storage"]: entry["nbytes"] for entry in saved}
    if len(storages) == 1 and names[0] == "a copy of x":
        c.fail("saves-a-copy",
               "RecomputeSiLU saved a copy of x, not x itself: the copy costs as much memory as x again, and "
               "autograd's version counter no longer protects x. Call ctx.save_for_backward(x) with x itself.")
    if len(storages) > 1 or saved[0]["is"] != "x":
        kept = sum(storages.values())
        extra = [n for n in names if n != "x"]
        what = ", ".join(dict.fromkeys(names))
        advice = "save only x and recompute sigmoid(x) in backward"
        if "the output" in extra:
            advice += " (saving the output as well keeps a second tensor of x's size alive)"
        elif "sigmoid(x)" in extra:
            advice += " (saving sigmoid(x) is exactly the memory this Function exists to avoid)"
        c.fail("saves-too-much",
               f"RecomputeSiLU saved {len(saved)} tensor(s) for backward ({what}): {kept} bytes for an input of "
               f"{x.untyped_storage().nbytes()} bytes. The point of recomputing is to keep only x: {advice}.")


def silu_saves_x_itself(RecomputeSiLU) -> None:
    """Hidden: with a crafted ctx, forward saves (x,) itself, keeps no tensor on ctx, and backward recomputes."""
    c.require_function(RecomputeSiLU, SILU)
    x = c.randn(2, 3, seed=8)
    ctx = behaviour.stand_in_ctx(SILU, (True,))
    with torch.no_grad():
        y = c.call(RecomputeSiLU.forward, ctx, x, what="RecomputeSiLU.forward")
    stashed = [where for where, _ in behaviour.on_ctx(ctx)]
    if stashed:
        c.fail("ctx-attribute",
               f"RecomputeSiLU.forward keeps a tensor as {stashed[0]}: that tensor stays alive until backward "
               "just like a saved one (so no memory is saved), and autograd cannot check it. Save only x with "
               "ctx.save_for_backward(x) and recompute sigmoid(x) in backward.")
    saved = tuple(ctx.saved_tensors)
    if len(saved) != 1 or saved[0] is not x:
        got = ", ".join(_describe(t, x, y) for t in saved) or "nothing"
        c.fail("not-saved-for-backward",
               f"RecomputeSiLU.forward should call ctx.save_for_backward(x) with x itself (saved: {got}). "
               "Not a copy, not sigmoid(x), not the output: autograd's version counter then protects x.")
    grad_out = c.randn(2, 3, seed=9, requires_grad=False)
    with torch.no_grad():
        grads = c.call(RecomputeSiLU.backward, ctx, grad_out, what="RecomputeSiLU.backward")
    grad = grads[0] if isinstance(grads, (tuple, list)) else grads
    c.require_close(grad, grad_out * _silu_grad_ref(x), "backward called with the saved x", "wrong-derivative",
                    SILU_HINT)


def silu_inplace_detected(RecomputeSiLU, seeds=(10, 11)) -> None:
    """Hidden: x goes through save_for_backward, so changing it in place before backward raises, and leaving it
    alone gives the right gradient: for a leaf input and a non-leaf input alike."""
    c.require_function(RecomputeSiLU, SILU)
    for seed in seeds:
        for leaf in (False, True):
            _silu_inplace(RecomputeSiLU, seed, leaf)


def _silu_input(seed: int, leaf: bool):
    base = c.randn(*SHAPES[1 + seed % (len(SHAPES) - 1)], seed=seed)
    return base, (base if leaf else base * 1.0)


def _silu_inplace(RecomputeSiLU, seed: int, leaf: bool) -> None:
    base, x = _silu_input(seed, leaf)
    y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
    c.require_own_node(y, RecomputeSiLU, SILU)
    with torch.no_grad():
        x.add_(1.0)
    try:
        torch.autograd.grad(y.sum(), [base])
    except NotImplementedError:
        c.fail("not-implemented",
               "RecomputeSiLU.backward is not implemented yet (it still raises NotImplementedError).")
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
    else:
        c.fail("not-saved-for-backward",
               "changing x in place after forward went unnoticed, so backward recomputed the sigmoid from a changed "
               "x: save x with ctx.save_for_backward(x) (x itself, not a copy) so autograd's version counter "
               "catches it.")
    base, x = _silu_input(seed + 50, leaf)
    y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
    try:
        (grad,) = torch.autograd.grad(y.sum(), [base])
    except NotImplementedError:
        c.fail("not-implemented",
               "RecomputeSiLU.backward is not implemented yet (it still raises NotImplementedError).")
    except RuntimeError as error:
        if "modified by an inplace operation" in str(error):
            c.fail("error-without-change",
                   "backward raised autograd's in-place error although nothing was changed in place: the version "
                   "counter of the tensors saved with ctx.save_for_backward raises only when one of them has "
                   "changed. Save x itself and let autograd do the checking.")
        raise
    c.require_close(grad, _silu_grad_ref(base), "the gradient of RecomputeSiLU.apply(x).sum()", "wrong-derivative",
                    SILU_HINT)


# -------------------------------------------------------------------------------------- checkpointed_mlp

def make_layers(widths, seed, dtype=torch.float64):
    """nn.Linear layers with seeded weights (no draw from the global random generator)."""
    layers = []
    for i, (n_in, n_out) in enumerate(zip(widths, widths[1:])):
        with torch.random.fork_rng(devices=[]):  # the default init draws from the global generator: restore it
            layer = torch.nn.Linear(n_in, n_out, dtype=dtype)
        with torch.no_grad():
            layer.weight.copy_(c.randn(n_out, n_in, seed=seed + 31 * i, requires_grad=False) / n_in ** 0.5)
            layer.bias.copy_(c.randn(n_out, seed=seed + 31 * i + 1, requires_grad=False) * 0.5)
        layers.append(layer)
    return layers


def plain_mlp(x, layers):
    h = x
    for layer in layers:
        h = torch.nn.functional.silu(layer(h))
    return h


def _params(layers):
    return [p for layer in layers for p in (layer.weight, layer.bias)]


def _param_keys(layers):
    return {storage_key(p) for p in _params(layers)}


def _error_facts(error: BaseException) -> dict:
    """An error raised by the learner's code, as data: which of the two kinds the checks tell apart, and its text."""
    kind = "NotImplementedError" if isinstance(error, NotImplementedError) else "RuntimeError"
    return {"kind": kind, "message": str(error)[:4000]}


@c.probe
def run_checkpointed(checkpointed_mlp, x, widths, seed, grads: str = "all", measure: bool = False) -> dict:
    """Probe: build the layers from (widths, seed), call checkpointed_mlp(x, layers), then differentiate out.sum()
    with respect to x (if it requires grad) and, with grads="all", every parameter ("none": no backward).
    Every call is measured alike (`measure` is kept for callers; a measured call must look like any other): it
    runs under a pack hook, forward hooks count each layer's calls, and the graph is read after forward.

    Facts: callable, the error raised by the call or by backward (kind, text), the output's type, value and
    requires_grad, the use_reentrant warnings' text, the gradients, the bytes of activations saved (distinct
    storages, parameters left out), and each layer's call count after forward and after backward."""
    facts: dict = {"callable": callable(checkpointed_mlp)}
    if not facts["callable"]:
        return facts
    layers = make_layers(widths, seed)
    calls = [0] * len(layers)
    seen_inputs: list = [[] for _ in layers]  # (during backward?, the input) of each call of each layer

    def count(k, inputs):
        calls[k] += 1
        if inputs and isinstance(inputs[0], torch.Tensor):
            seen_inputs[k].append((torch._C._current_graph_task_id() != -1, inputs[0].detach().clone()))

    for k, layer in enumerate(layers):
        layer.register_forward_hook(lambda m, i, o, k=k: count(k, i))
    saved: list = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out, saved = record_saved(lambda: checkpointed_mlp(x, list(layers)))
        except (NotImplementedError, RuntimeError) as error:
            facts["raised"] = _error_facts(error)
            return facts
    facts["reentrant_warnings"] = [str(w.message)[:1000] for w in caught if "use_reentrant" in str(w.message)]
    facts["saved_bytes"] = distinct_bytes(saved, exclude=_param_keys(layers))
    if isinstance(out, torch.Tensor):
        # Read off the graph itself: hooks of the answer's own, which win over the pack hook above, hide nothing.
        kept = [t for _, t in behaviour.kept_by_graph([out])]
        facts["graph_bytes"] = distinct_bytes(kept, exclude=_param_keys(layers))
    facts["forward_calls"] = list(calls)
    if not isinstance(out, torch.Tensor):
        facts["type"] = type(out).__name__
        return facts
    facts["out"] = out.detach()
    facts["requires_grad"] = bool(out.requires_grad)
    if grads != "none":
        inputs = ([x] if x.requires_grad else []) + (_params(layers) if grads == "all" else [])
        try:
            facts["grads"] = list(torch.autograd.grad(out.sum(), inputs, allow_unused=True))
        except (NotImplementedError, RuntimeError) as error:
            facts["grad_error"] = _error_facts(error)
    facts["calls"] = list(calls)
    # Whether each layer ran again during backward on an input it had in forward (what a recompute does).
    facts["recomputed"] = [any(during and any(torch.equal(t, f) for was, f in seen if not was) for during, t in seen)
                           for seen in seen_inputs]
    return facts


def _run(checkpointed_mlp, x, widths, seed, grads="all", measure=False) -> dict:
    """The learner's function on x and layers built from (widths, seed), as facts (see `run_checkpointed`);
    a call that fails or returns no tensor is a mistake."""
    facts = run_checkpointed(checkpointed_mlp, x, widths, seed, grads=grads, measure=measure)
    if not facts["callable"]:
        c.fail("not-defined", f"`{MLP}` must be a function checkpointed_mlp(x, layers).")
    raised = facts.get("raised")
    if raised:
        if raised["kind"] == "NotImplementedError":
            c.fail("not-implemented", f"{MLP} is not implemented yet (it still raises NotImplementedError).")
        first = (raised["message"].splitlines() or [""])[0]
        c.fail("crashes", f"{MLP}(x, layers) raised RuntimeError: {first[:300]}")
    if "out" not in facts:
        c.fail("not-a-tensor", f"{MLP}(x, layers) should return a tensor, got {facts['type']}.")
    return facts


RECOMPUTE_HINT = ("The function that checkpoint re-runs in backward must compute exactly what it computed in "
                  "forward. A lambda written inside the loop (lambda t: F.silu(layer(t))) looks `layer` up only "
                  "when it runs, so in backward every block recomputes with the LAST layer: bind it now, with "
                  "a default argument (lambda t, layer=layer: ...) or functools.partial.")


def _grads(facts, what):
    """The gradients the learner's graph gave (None where an input got none); a failed backward is a mistake."""
    error = facts.get("grad_error")
    if not error:
        return facts["grads"]
    if error["kind"] == "NotImplementedError":
        c.fail("not-implemented", f"{what} is not implemented yet (it still raises NotImplementedError).")
    message = error["message"]
    text = (message.splitlines() or [""])[0][:200]
    if "use_reentrant=True" in message:
        c.fail("reentrant", f"{MLP} used the reentrant checkpoint, which cannot even be differentiated with "
                            "torch.autograd.grad (\"When use_reentrant=True, torch.utils.checkpoint is "
                            "incompatible with .grad()\"). Pass use_reentrant=False (omitting it also gives "
                            "the reentrant variant on torch 2.13).")
    if "does not require grad" in text:
        c.fail("no-graph", f"the output of {MLP} is not connected to x or to the layers' parameters ({text}). "
                           "Do not detach h or run the blocks under torch.no_grad().")
    c.fail("bad-recompute", f"backward through {MLP} failed while recomputing a block ({text}). "
                            + RECOMPUTE_HINT)


def _compare_grads(x, widths, seed, facts, what):
    """The learner's output and gradients (facts) against the plain composition over the same layers."""
    ref_layers = make_layers(widths, seed)
    ref_x = x.detach().clone().requires_grad_(x.requires_grad)
    ref_out = plain_mlp(ref_x, ref_layers)
    c.require_close(facts["out"], ref_out, f"{MLP}(x, layers){what}", "wrong-forward",
                    "each block is h = F.silu(layer(h)), applied in the order of `layers`.")
    names = (["x"] if x.requires_grad else []) + [
        f"layers[{i}].{n}" for i in range(len(ref_layers)) for n in ("weight", "bias")]
    ref_inputs = ([ref_x] if x.requires_grad else []) + _params(ref_layers)
    got = _grads(facts, MLP)
    expected = torch.autograd.grad(ref_out.sum(), ref_inputs)
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


def mlp_values(checkpointed_mlp, widths=(6, 8, 8, 5), batch=4, seed=0) -> None:
    """Visible: values and every gradient equal the plain composition."""
    c.require_self_contained(checkpointed_mlp, MLP)
    x = c.randn(batch, widths[0], seed=seed + 100)
    facts = _run(checkpointed_mlp, x, widths, seed)
    _compare_grads(x, widths, seed, facts, "")


def mlp_values_hidden(checkpointed_mlp) -> None:
    """Hidden: more widths (several of them equal, which hides a late-bound layer from shape checks) and seeds."""
    for seed, widths in ((1, (5, 5, 5, 5, 5)), (2, (3, 7, 2)), (3, (4, 4)), (4, (6, 9, 6, 9, 3))):
        x = c.randn(3, widths[0], seed=seed + 100)
        facts = _run(checkpointed_mlp, x, widths, seed)
        _compare_grads(x, widths, seed, facts, f" for widths {widths}")


def mlp_memory(checkpointed_mlp, widths=(32, 64, 64, 32), batch=16, seed=5) -> None:
    """Visible: saved activations (measured with saved_tensors_hooks, and read off the graph) are only the
    blocks' inputs, and every block is recomputed in backward, on its input."""
    layers = make_layers(widths, seed)
    x = c.randn(batch, widths[0], seed=seed + 100)
    _, plain_saved = record_saved(lambda: plain_mlp(x, layers))
    plain = distinct_bytes(plain_saved, exclude=_param_keys(layers))
    budget = batch * sum(widths[:-1]) * x.element_size()
    facts = _run(checkpointed_mlp, x, widths, seed, measure=True)
    measured = max(facts["saved_bytes"], facts.get("graph_bytes", 0))
    if measured > budget:
        c.fail("saves-too-much",
               f"{MLP} kept {measured} bytes of activations for backward (the plain composition keeps {plain}; "
               f"checkpointing every block should keep only the blocks' inputs, {budget} bytes). Put the whole "
               "block, Linear AND SiLU, inside the function you pass to torch.utils.checkpoint.checkpoint, "
               "for every layer.")
    grad_x = _grads(facts, MLP)[0]
    if grad_x is None:
        c.fail("graph-cut", f"x got no gradient from {MLP}: something cut the graph. Do not detach the block "
                            "inputs (h.detach(), h.data) or run blocks under no_grad.")
    forward_calls = facts["forward_calls"]
    again = [n - f for n, f in zip(facts["calls"], forward_calls)]
    if all(a >= 1 for a in again) and not all(facts.get("recomputed", [True])):
        which = [k for k, done in enumerate(facts["recomputed"]) if not done]
        c.fail("no-recompute",
               f"during backward, layers {which} ran, but never on the input they had in forward: that is not a "
               "recompute of the block. Wrap every block with torch.utils.checkpoint.checkpoint(block, h, "
               "use_reentrant=False), which re-runs it on its saved input.")
    if any(a < 1 for a in again):
        c.fail("no-recompute",
               f"the layers ran {forward_calls} times in forward and {again} times during backward: checkpointing "
               "re-runs each block in backward. Wrap every block with "
               "torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False).")


def mlp_memory_hidden(checkpointed_mlp) -> None:
    """Hidden: more widths, those of the other tests among them (no input is the memory test's alone)."""
    for seed, widths, batch in ((6, (16, 48, 48, 48, 16), 8), (7, (10, 20, 5), 12), (0, (6, 8, 8, 5), 4),
                                (1, (5, 5, 5, 5, 5), 3)):
        mlp_memory(checkpointed_mlp, widths, batch, seed)


def mlp_frozen_input(checkpointed_mlp, widths=(5, 7, 7, 3), batch=4, seed=8) -> None:
    """Hidden: with an input that does not require grad (plain data), the parameters still get their gradients,
    and no use_reentrant warning is raised."""
    x = c.randn(batch, widths[0], seed=seed + 100, requires_grad=False)
    facts = _run(checkpointed_mlp, x, widths, seed)
    reentrant = facts["reentrant_warnings"]
    if reentrant:
        c.fail("use-reentrant-omitted",
               f"torch.utils.checkpoint warned: \"{reentrant[0][:110]}...\". Pass use_reentrant=False "
               "explicitly: when you omit it, torch 2.13 still uses the old reentrant variant.")
    if not facts["requires_grad"]:
        probe = c.randn(batch, widths[0], seed=seed + 101)
        if not _run(checkpointed_mlp, probe, widths, seed, grads="none")["requires_grad"]:
            c.fail("graph-cut", f"the output of {MLP} does not require grad at all: something cut the graph. Do not "
                                "detach h or run the blocks under torch.no_grad(): checkpoint already avoids "
                                "keeping the activations.")
        c.fail("reentrant-loses-grads",
               f"with an input x that does not require grad, the output of {MLP} does not require grad, so the "
               "layers' parameters get no gradient. That is what the reentrant checkpoint does "
               "(use_reentrant=True, or omitting it): pass use_reentrant=False.")
    _compare_grads(x, widths, seed, facts, " with an input that does not require grad")
