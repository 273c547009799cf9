"""Checks for notebook 08 (trading memory for compute).

- `RecomputeSiLU.apply(x)` returns x * sigmoid(x), saves only x and recomputes the sigmoid in backward.
- `checkpointed_mlp(x, layers)` applies `h = silu(layer(h))` for each nn.Linear in `layers`, each block
  wrapped in `torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`.

Each check takes `cases=`: its default is what the notebook's visible test runs, the hidden block passes the
larger table below it (`SILU_VALUE_CASES`, ...). Errors become mistakes through the Rule tables (`*_RULES`).

What the judge observes itself: RecomputeSiLU's values and gradients, and what its `forward` saves when called
directly with a stand-in ctx the judge made (the tensors given to `ctx.save_for_backward` cross back by value,
x itself as x itself; any tensor kept on ctx is found there); the in-place change of x before backward (the
version counters of both processes agree). `checkpointed_mlp`'s values and gradients, too: its layers are
`JudgeLinear`s, which cross to the learner's process by value (weight and bias), so the judge holds the
parameters and differentiates the call like any other.

What only the learner's process can observe is the memory of `checkpointed_mlp`: one probe
(`run_checkpointed`) builds real nn.Linear layers holding the weights the judge drew from (widths, seed),
measures saved bytes twice (with a pack hook, which sees every tensor autograd keeps outside a checkpointed
region and outside any hooks of the answer's own; and on the graph itself after forward,
`behaviour.kept_by_graph`, from which no hook of the answer's can hide anything), counts the layers' calls (a
block counts as recomputed when its layer runs during backward on the input it had in forward) and records
checkpoint's warnings. Every verdict is reached here, against references computed from the same (widths,
seed).
"""

from __future__ import annotations

import warnings

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule, literal


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


def _describe(tensor, x, out) -> str:
    """What a saved tensor is, in the learner's words: by identity or storage first, then by its values."""
    if tensor is x or storage_key(tensor) == storage_key(x):
        return "x"
    if isinstance(out, torch.Tensor) and (tensor is out or storage_key(tensor) == storage_key(out)):
        return "the output"
    if tensor.shape == x.shape and tensor.dtype == x.dtype:
        value, x = tensor.detach(), x.detach()
        if bool(torch.allclose(value, torch.sigmoid(x))):
            return "sigmoid(x)"
        if bool(torch.allclose(value, torch.nn.functional.silu(x))):
            return "the output"
        if bool(torch.allclose(value, x)):
            return "a copy of x"
    return f"a tensor of shape {tuple(tensor.shape)}"


def _raises_inplace_error(fn) -> bool:
    """Whether `fn()` raises autograd's in-place modification error (any other error passes on)."""
    try:
        fn()
    except RuntimeError as error:
        if "modified by an inplace operation" in str(error):
            return True
        raise
    return False


# ---------------------------------------------------------------------------------------- RecomputeSiLU

def _silu_ref(x):
    return torch.nn.functional.silu(x.detach())


def _silu_grad_ref(x):
    s = torch.sigmoid(x.detach())
    return s * (1 + x.detach() * (1 - s))


EXTREMES = (-100.0, -40.0, -5.0, 0.3, 5.0, 40.0, 100.0)
# (dtype, the entries of x): the visible case, then float32 and float64 at large |x|.
SILU_VALUE_CASES = ((torch.float64, (-3.0, -0.5, 0.0, 1.0, 2.5)), (torch.float32, EXTREMES),
                    (torch.float64, EXTREMES))


def silu_values(RecomputeSiLU, cases=SILU_VALUE_CASES[:1]) -> None:
    """Forward values and the gradient; the output keeps x's dtype, and large |x| gives finite, right values."""
    c.require_function(RecomputeSiLU, SILU)
    c.require_self_contained(RecomputeSiLU, SILU)
    for dtype, entries in cases:
        x = torch.tensor(entries, dtype=dtype, requires_grad=True)
        large = max(abs(v) for v in entries) > 10
        where = f" at large |x| ({dtype})" if large else ""
        tolerance = {} if dtype == torch.float64 and not large else {"rtol": 1e-5, "atol": 1e-6}
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        if not isinstance(y, torch.Tensor):
            c.fail("not-a-tensor", f"RecomputeSiLU.apply(x) should return a tensor, got {type(y).__name__}.")
        if y.dtype != dtype:
            c.fail("wrong-dtype", f"for a {dtype} input RecomputeSiLU.apply returned {y.dtype}: compute in the "
                                  "input's dtype (do not convert).")
        (grad,) = c.backward_grads(y, [x], what="RecomputeSiLU.backward")
        if grad is None:
            c.fail("no-gradient", "RecomputeSiLU.apply(x) gave x no gradient: backward must return the gradient "
                                  "of x.")
        if not bool(torch.isfinite(y).all()) or not bool(torch.isfinite(grad).all()):
            c.fail("unstable", f"RecomputeSiLU gives inf or nan for large |x| ({dtype}, x = ±40, ±100): "
                               "use torch.sigmoid(x) rather than exp(x) / (1 + exp(x)), which overflows.")
        c.require_close(y, _silu_ref(x), f"RecomputeSiLU.apply(x){where}", "wrong-forward",
                        "forward should return x * torch.sigmoid(x).", **tolerance)
        c.require_close(grad, _silu_grad_ref(x), f"the gradient of RecomputeSiLU.apply(x).sum(){where}",
                        "wrong-derivative", SILU_HINT, **tolerance)


# (seed, shape) pairs.
SILU_GRADCHECK_CASES = tuple((seed, shape) for seed in (0, 1, 2) for shape in SHAPES)


def silu_gradcheck(RecomputeSiLU, cases=((0, (3,)),)) -> None:
    """float64 finite differences, one case per (seed, shape)."""
    c.require_function(RecomputeSiLU, SILU)
    for seed, shape in cases:
        x = c.randn(*shape, seed=seed, scale=2.0)
        c.gradcheck(RecomputeSiLU.apply, (x,), f"RecomputeSiLU on shape {shape}", hint=SILU_HINT)


SILU_GRAPH_CASES = (0, 5, 15)  # seeds


def silu_graph(RecomputeSiLU, cases=SILU_GRAPH_CASES[:1]) -> None:
    """.apply records RecomputeSiLU's own node, and backward multiplies by grad_output."""
    c.require_function(RecomputeSiLU, SILU)
    for seed in cases:
        x = c.randn(2, 3, seed=seed)
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        c.require_own_node(y, RecomputeSiLU, SILU)
        weights = c.randn(2, 3, seed=seed + 1, requires_grad=False)
        (grad,) = c.backward_grads(y, [x], weights, what="RecomputeSiLU.backward")
        c.require_close(grad, weights * _silu_grad_ref(x), "the gradient with a random grad_output",
                        "ignores-grad-output", "multiply by grad_output: backward receives dLoss/dy and must "
                                               "return grad_output * dy/dx.")


# (shape, seed) of x.
SILU_SAVED_CASES = (((2, 3, 4), 7), ((2, 3), 8), ((5,), 3), ((), 4))


def silu_saves_only_x(RecomputeSiLU, cases=SILU_SAVED_CASES[:1]) -> None:
    """forward, called with a stand-in ctx, saves exactly x itself with save_for_backward and keeps no tensor on
    ctx; backward, called with that ctx, recomputes the right gradient from it."""
    c.require_function(RecomputeSiLU, SILU)
    for shape, seed in cases:
        _silu_saves_only_x(RecomputeSiLU, shape, seed)


def _silu_saves_only_x(RecomputeSiLU, shape, seed) -> None:
    x = c.randn(*shape, seed=seed)
    ctx = behaviour.stand_in_ctx(SILU, (True,))
    with torch.no_grad():
        if c.uses_setup_context(RecomputeSiLU):  # forward(x) + setup_context(ctx, inputs, output)
            y = c.call(RecomputeSiLU.forward, x, what="RecomputeSiLU.forward")
            c.call(RecomputeSiLU.setup_context, ctx, (x,), y, what="RecomputeSiLU.setup_context")
        else:
            y = c.call(RecomputeSiLU.forward, ctx, x, what="RecomputeSiLU.forward")
    saved = tuple(ctx.saved_tensors)
    stashed = [where for where, _ in behaviour.on_ctx(ctx)]
    if not saved:
        c.fail("nothing-saved",
               "RecomputeSiLU saved no tensor with ctx.save_for_backward: save x (only x) and read it back in "
               "backward with ctx.saved_tensors. A tensor stored as a plain ctx attribute is invisible to "
               "autograd's bookkeeping.")
    names = [_describe(t, x, y) for t in saved]
    if names == ["a copy of x"]:
        c.fail("saves-a-copy",
               "RecomputeSiLU saved a copy of x, not x itself: the copy costs as much memory as x again, and "
               "autograd's version counter no longer protects x. Call ctx.save_for_backward(x) with x itself.")
    if names != ["x"]:
        kept = sum(t.numel() * t.element_size() for t in saved)
        what = ", ".join(dict.fromkeys(names))
        advice = "save only x and recompute sigmoid(x) in backward"
        if "the output" in names:
            advice += " (saving the output as well keeps a second tensor of x's size alive)"
        elif "sigmoid(x)" in names:
            advice += " (saving sigmoid(x) is exactly the memory this Function exists to avoid)"
        c.fail("saves-too-much",
               f"RecomputeSiLU saved {len(saved)} tensor(s) for backward ({what}): {kept} bytes for an input of "
               f"{x.numel() * x.element_size()} bytes. The point of recomputing is to keep only x: {advice}.")
    if stashed:
        c.fail("ctx-attribute",
               f"RecomputeSiLU.forward keeps a tensor as {stashed[0]}: that tensor stays alive until backward "
               "just like a saved one (so no memory is saved), and autograd cannot check it. Save only x with "
               "ctx.save_for_backward(x) and recompute sigmoid(x) in backward.")
    grad_out = c.randn(*shape, seed=seed + 1, requires_grad=False)
    with torch.no_grad():
        grads = c.call(RecomputeSiLU.backward, ctx, grad_out, what="RecomputeSiLU.backward")
    grad = grads[0] if isinstance(grads, (tuple, list)) else grads
    c.require_close(grad, grad_out * _silu_grad_ref(x), "backward called with the saved x", "wrong-derivative",
                    SILU_HINT)
    _silu_real_node(RecomputeSiLU, shape, seed)


def _silu_real_node(RecomputeSiLU, shape, seed) -> None:
    """The same property in the node autograd made for RecomputeSiLU.apply(x) (`behaviour.real_node`, in the
    learner's process): it saved x itself and nothing else, and no other tensor made by the call is alive after it,
    wherever it is kept (on ctx at any depth, in a deque, in a global keyed by id(ctx)). A stand-in ctx can be
    recognised; the real node cannot be told from real use."""
    x = c.randn(*shape, seed=seed)
    facts = c.call(behaviour.real_node, RecomputeSiLU, (x,), what="RecomputeSiLU.apply(x)")
    c.require_own_node(facts["output"], RecomputeSiLU, SILU)
    lead = "Called directly, your forward saved only x; but under autograd (RecomputeSiLU.apply(x)) "
    if facts["unreadable"]:
        c.fail("kept-unreadable",
               f"{lead}it keeps a tensor alive ({facts['unreadable'][0]}) whose memory the grader cannot read (a "
               "tensor without storage of its own). Save only x with ctx.save_for_backward(x) and recompute "
               "sigmoid(x) in backward.")
    kinds = [s["kind"] for s in facts["saved"]]
    if kinds != ["input 0"]:
        names = ", ".join(dict.fromkeys(_real_name(s["kind"], s["tensor"], x) for s in facts["saved"])) or "nothing"
        code = "nothing-saved" if not kinds else "saves-a-copy" if kinds == ["copy of input 0"] else "saves-too-much"
        c.fail(code, f"{lead}its node saved {names}. The point of recomputing is to keep only x: call "
                     "ctx.save_for_backward(x) with x itself, whoever calls forward, and recompute sigmoid(x) in "
                     "backward.")
    if facts["kept"]:
        kept = facts["kept"][0]
        c.fail("ctx-attribute",
               f"{lead}it keeps {_real_name(kept['kind'], kept['tensor'], x)} alive until backward "
               f"({kept['where']}, {sum(k['nbytes'] for k in facts['kept'])} bytes in all): that tensor costs as "
               "much memory as a saved one, and autograd cannot check it. Save only x with "
               "ctx.save_for_backward(x) and recompute sigmoid(x) in backward.")


def _real_name(kind: str, tensor, x) -> str:
    if kind == "input 0":
        return "x"
    if kind == "output":
        return "the output"
    if kind in ("copy of input 0", "alias of input 0"):
        return "a copy of x" if kind.startswith("copy") else "a view of x"
    if tensor.shape == x.shape and bool(torch.allclose(tensor, torch.sigmoid(x.detach()))):
        return "sigmoid(x)"
    if tensor.shape == x.shape and bool(torch.allclose(tensor, x.detach() * torch.sigmoid(x.detach()))):
        return "the output's values"
    return f"a tensor of shape {tuple(tensor.shape)}"


# (seed, whether x is a leaf).
SILU_INPLACE_CASES = ((10, False), (10, True), (11, False), (11, True))

NO_CHANGE_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("error-without-change", "modified by an inplace operation",
         "backward raised autograd's in-place error although nothing was changed in place: the version counter "
         "of the tensors saved with ctx.save_for_backward raises only when one of them has changed. Save x "
         "itself and let autograd do the checking.", types=(RuntimeError,)),
)


def silu_inplace_detected(RecomputeSiLU, cases=SILU_INPLACE_CASES[:1]) -> None:
    """x goes through save_for_backward, so changing it in place before backward raises, and leaving it alone
    gives the right gradient: for a leaf input and a non-leaf input alike."""
    c.require_function(RecomputeSiLU, SILU)
    for seed, leaf in cases:
        base, x = _silu_input(seed, leaf)
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")  # its own node: silu_graph's rule
        with torch.no_grad():
            x.add_(1.0)
        with c.explained("RecomputeSiLU.backward", (c.NOT_IMPLEMENTED,)):
            noticed = _raises_inplace_error(lambda: torch.autograd.grad(y.sum(), [base]))
        if not noticed:
            c.fail("not-saved-for-backward",
                   "changing x in place after forward went unnoticed, so backward recomputed the sigmoid from a "
                   "changed x: save x with ctx.save_for_backward(x) (x itself, not a copy) so autograd's version "
                   "counter catches it.")
        base, x = _silu_input(seed + 50, leaf)
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        with c.explained("RecomputeSiLU.backward", NO_CHANGE_RULES):
            (grad,) = torch.autograd.grad(y.sum(), [base])
        c.require_close(grad, _silu_grad_ref(base), "the gradient of RecomputeSiLU.apply(x).sum()",
                        "wrong-derivative", SILU_HINT)


def _silu_input(seed: int, leaf: bool):
    base = c.randn(*SHAPES[1 + seed % (len(SHAPES) - 1)], seed=seed)
    return base, (base if leaf else base * 1.0)


# -------------------------------------------------------------------------------------- checkpointed_mlp

class JudgeLinear(c.FakeCtx):
    """A Linear layer that crosses to the learner's process by value, its weight and bias with it: the judge
    keeps the parameters, and the learner's call is one node of the judge's graph, gradients included.
    `layer(h)` is F.linear(h, weight, bias); `in_features`, `out_features` and `parameters()` as nn.Linear."""

    def __init__(self, weight, bias):
        vars(self).update(weight=weight, bias=bias)

    def __call__(self, h):
        return torch.nn.functional.linear(h, self.weight, self.bias)

    forward = __call__

    @property
    def in_features(self) -> int:
        return self.weight.shape[1]

    @property
    def out_features(self) -> int:
        return self.weight.shape[0]

    def parameters(self):
        return iter((self.weight, self.bias))

    def __repr__(self) -> str:
        return f"Linear(in_features={self.in_features}, out_features={self.out_features})"


def _weights(widths, seed, dtype=torch.float64):
    """Seeded (weight, bias) of each layer (no draw from the global random generator)."""
    return [(c.randn(n_out, n_in, seed=seed + 31 * i, dtype=dtype) / n_in ** 0.5,
             c.randn(n_out, seed=seed + 31 * i + 1, dtype=dtype) * 0.5)
            for i, (n_in, n_out) in enumerate(zip(widths, widths[1:]))]


def judge_layers(widths, seed):
    """JudgeLinear layers with the weights `make_layers` gives the same (widths, seed): leaves of the judge."""
    return [JudgeLinear(w.detach().requires_grad_(), b.detach().requires_grad_()) for w, b in _weights(widths, seed)]


def make_layers(widths, seed, dtype=torch.float64):
    """nn.Linear layers with seeded weights (no draw from the global random generator)."""
    return layers_from(_weights(widths, seed, dtype))


def layers_from(weights) -> list:
    """nn.Linear layers holding copies of (weight, bias) pairs."""
    layers = []
    for weight, bias in weights:
        n_out, n_in = weight.shape
        with torch.random.fork_rng(devices=[]):  # the default init draws from the global generator: restore it
            layer = torch.nn.Linear(n_in, n_out, dtype=weight.dtype)
        with torch.no_grad():
            layer.weight.copy_(weight)
            layer.bias.copy_(bias)
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
    Rule("no-graph", "does not require grad",
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
    inputs = ([x] if x.requires_grad else []) + _params(layers)  # as passed: the call replaces a layer's state
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
    expected = torch.autograd.grad(ref_out.sum(), ([ref_x] if x.requires_grad else []) + _params(ref_layers))
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
    """With an input that does not require grad (plain data), the parameters still get their gradients."""
    c.require_self_contained(checkpointed_mlp, MLP)
    for widths, batch, seed in cases:
        x = c.randn(batch, widths[0], seed=seed + 100, requires_grad=False)
        out, got = _run_mlp(checkpointed_mlp, x, widths, seed)
        if got is None:
            probe = c.randn(batch, widths[0], seed=seed + 101)
            if _run_mlp(checkpointed_mlp, probe, widths, seed, grads=False)[1] is None:
                c.fail("graph-cut", f"the output of {MLP} does not require grad at all: something cut the graph. "
                                    "Do not detach h or run the blocks under torch.no_grad(): checkpoint already "
                                    "avoids keeping the activations.")
            c.fail("reentrant-loses-grads",
                   f"with an input x that does not require grad, the output of {MLP} does not require grad, so the "
                   "layers' parameters get no gradient. That is what the reentrant checkpoint does "
                   "(use_reentrant=True, or omitting it): pass use_reentrant=False.")
        _compare(out, got, x, widths, seed, " with an input that does not require grad")


def _error_facts(error: BaseException) -> dict:
    """An error raised by the learner's code, as data: which of the two kinds the checks tell apart, and its text."""
    kind = "NotImplementedError" if isinstance(error, NotImplementedError) else "RuntimeError"
    return {"kind": kind, "message": str(error)[:4000]}


def _as_error(facts: dict) -> BaseException:
    """The error a probe reported, rebuilt here so that the Rule tables can read it."""
    return (NotImplementedError if facts["kind"] == "NotImplementedError" else RuntimeError)(facts["message"])


@c.probe
def run_checkpointed(checkpointed_mlp, x, weights, all_grads: bool = False) -> dict:
    """Probe: build nn.Linear layers holding `weights` (the judge draws them), call checkpointed_mlp(x, layers) under a pack hook, with
    forward hooks counting each layer's calls, read the graph after forward, then differentiate out.sum() with
    respect to x (with `all_grads`, and to every parameter).

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

    def count(k, inputs):
        calls[k] += 1
        if inputs and isinstance(inputs[0], torch.Tensor):
            seen_inputs[k].append((torch._C._current_graph_task_id() != -1, inputs[0].detach().clone()))

    for k, layer in enumerate(layers):
        layer.register_forward_hook(lambda m, i, o, k=k: count(k, i))
    facts: dict = {}
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
    if not isinstance(out, torch.Tensor):
        facts["type"] = type(out).__name__
        return facts
    facts["saved_bytes"] = distinct_bytes(saved, exclude=_param_keys(layers))
    # Read off the graph itself: hooks of the answer's own, which win over the pack hook above, hide nothing.
    kept = [t for _, t in behaviour.kept_by_graph([out])]
    facts["graph_bytes"] = distinct_bytes(kept, exclude=_param_keys(layers))
    facts["forward_calls"] = list(calls)
    facts["out"], facts["requires_grad"] = out.detach(), bool(out.requires_grad)
    if out.requires_grad:
        inputs = ([x] if x.requires_grad else []) + (_params(layers) if all_grads else [])
        try:
            facts["grads"] = list(torch.autograd.grad(out.sum(), inputs, allow_unused=True))
        except (NotImplementedError, RuntimeError) as error:
            facts["grad_error"] = _error_facts(error)
    facts["calls"] = list(calls)
    facts["recomputed"] = [any(during and any(torch.equal(t, f) for was, f in seen if not was) for during, t in seen)
                           for seen in seen_inputs]
    return facts


def _probe_facts(checkpointed_mlp, x, widths, seed, all_grads=False) -> dict:
    """`run_checkpointed`'s facts; a call that fails or returns no tensor is a mistake."""
    if not callable(checkpointed_mlp):
        c.fail("not-defined", f"`{MLP}` must be a function checkpointed_mlp(x, layers).")
    facts = run_checkpointed(checkpointed_mlp, x, _weights(widths, seed), all_grads=all_grads)
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
    """Saved activations (measured with saved_tensors_hooks, and read off the graph) are only the blocks' inputs,
    every block is recomputed in backward, on its input, and use_reentrant=False is passed."""
    for widths, batch, seed in cases:
        _mlp_memory(checkpointed_mlp, widths, batch, seed)


def _mlp_memory(checkpointed_mlp, widths, batch, seed) -> None:
    layers = make_layers(widths, seed)
    x = c.randn(batch, widths[0], seed=seed + 100)
    _, plain_saved = record_saved(lambda: plain_mlp(x, layers))
    plain = distinct_bytes(plain_saved, exclude=_param_keys(layers))
    budget = batch * sum(widths[:-1]) * x.element_size()
    facts = _probe_facts(checkpointed_mlp, x, widths, seed)
    reentrant = facts["reentrant_warnings"]
    if reentrant:
        c.fail("use-reentrant-omitted",
               f"torch.utils.checkpoint warned: \"{reentrant[0][:110]}...\". Pass use_reentrant=False "
               "explicitly: when you omit it, torch 2.13 still uses the old reentrant variant.")
    # Backward here runs through torch.autograd.grad, which the reentrant checkpoint refuses.
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
    again = [n - f for n, f in zip(facts["calls"], forward_calls)]
    if all(a >= 1 for a in again) and not all(facts["recomputed"]):
        which = [k + 1 for k, done in enumerate(facts["recomputed"]) if not done]
        c.fail("no-recompute",
               f"during backward, layers {which} (counted from 1) ran, but never on the input they had in forward: "
               "that is not a recompute of the block. Wrap every block with torch.utils.checkpoint.checkpoint("
               "block, h, use_reentrant=False), which re-runs it on its saved input.")
    if any(a < 1 for a in again):
        c.fail("no-recompute",
               f"the layers ran {forward_calls} times in forward and {again} times during backward: checkpointing "
               "re-runs each block in backward. Wrap every block with "
               "torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False).")
