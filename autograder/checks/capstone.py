"""Checks for the capstone (notebook 14): `LogSumExp.apply(x, dim, keepdim)`.

Contract: log(sum(exp(x), dim)) like torch.logsumexp(x, dim, keepdim), for an int `dim` (negative allowed) and a
bool `keepdim`, in x's dtype; finite and accurate for inputs of magnitude 1e4; on masked rows (-inf entries) the
value of torch.logsumexp, -inf for a fully masked row, and its gradient and tangent wherever a row keeps a finite
entry; backward returns (grad_x, None, None) and is differentiable again; forward mode (a `jvp` returning the
output's tangent) and torch.func's transforms (vmap, vmap(grad), vmap(jvp), jvp, jacfwd, hessian) give what they
give for torch.logsumexp; besides x itself, only reduced-size tensors are kept for backward.

Every check takes `cases=`: its default is what the visible test runs, the hidden tests pass the larger tables
below. A case is a tuple whose last item is its seed. Errors become mistakes only through the rule tables
(`RULES`, `FORWARD_RULES`): see autograder/checks/explain.py.

Where the judge can, it verifies the Function's own static methods rather than what a transform reports: the
forward-mode test calls forward, setup_context and jvp through the learner's proxies with a stand-in ctx
(`ThroughMethods`, a Function of the judge's made of them) and runs gradcheck's forward-AD check on that, so no
fact of it comes from the learner's process. torch.func's transforms must run where the Function lives: they run
in the probe `transformed`, which returns only the tensors computed; the comparisons are made here. The trusted
reference is torch.logsumexp (and torch.func's transforms of it, computed here), bound when this module is
imported.
"""

from __future__ import annotations

import functools

import torch
import torch.autograd.forward_ad as _FORWARD_AD
import torch.func
from torch.autograd import gradcheck as _gradcheck

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule, literal


NAME = "LogSumExp"
F64, F32 = torch.float64, torch.float32
VALUE_HINT = "the result is log(sum(exp(x), dim)), as torch.logsumexp(x, dim, keepdim)."
GRAD_HINT = ("d logsumexp(x)/dx = exp(x - logsumexp(x)) = softmax(x) along dim; backward returns grad_output times "
             "that (with grad_output and the saved output unsqueezed at dim when keepdim=False), then None, None.")
SHIFT_HINT = ("subtract the max along dim before exp (the log-sum-exp trick of notebook 07): "
              "m + log(sum(exp(x - m))) never overflows, and in backward use exp(x - output), never exp(x) / exp(output).")
MASK_HINT = ("a row whose entries are all -inf has max -inf, and x - max is then -inf - (-inf) = nan: replace an "
             "infinite max by 0 before subtracting it (any finite shift gives the same sum), so that the row's "
             "value is log(0) = -inf, as torch.logsumexp gives.")
EXPAND_HINT = ("grad_output has the output's shape: with keepdim=False the reduced dim is missing, so unsqueeze(dim) "
               "grad_output and the saved output before multiplying by exp(x - output), or they line up with the wrong "
               "dimension (notebook 03).")
JVP_HINT = ("jvp(ctx, x_t, dim_t, keepdim_t) returns the output's tangent: exp(x - output) * x_t summed over dim "
            "(with keepdim=ctx.keepdim), the saved output unsqueezed at dim first when keepdim=False; "
            "x and the output come from ctx.saved_tensors, saved in setup_context with ctx.save_for_forward.")
TWICE_HINT = ("Save what backward needs in setup_context with ctx.save_for_backward (x and the output), and build "
              "backward from differentiable torch operations on them, without .detach(), NumPy or torch.no_grad(): "
              "a second derivative differentiates your backward (notebooks 05 and 10).")
HESSIAN_HINT = ("hessian is jacfwd(jacrev(f)): forward mode through your backward, whose saved output gets its tangent "
                "from your jvp. Both must be right, and backward made of torch operations. " + JVP_HINT)

# (shape, dim, keepdim): square shapes make a wrongly aligned broadcast silent instead of an error.
# Forgetting to unsqueeze is harmless for dim 0 (broadcasting adds leading dims), so most cases reduce elsewhere.
CASES = [((3, 3), 1, False), ((3, 3), 0, True), ((2, 3, 4), -1, False), ((2, 3, 4), 1, True),
         ((4, 1, 3), 0, False), ((5,), 0, False), ((4, 4), -1, False), ((2, 2, 2), 1, False)]

# values: (shape, dim, keepdim, dtype, seed)
VALUE_EXAMPLE = (((3, 4), 1, False, F64, 0),)
VALUE_CASES = tuple((shape, dim, keepdim, F32 if k % 2 else F64, 10 * seed + k)
                    for seed in (0, 1) for k, (shape, dim, keepdim) in enumerate(CASES[:5]))

# stability: (label, shift, scale, dtype, seed)
_MAGNITUDES = (("entries of size 1e4", 0.0, 1e4, F64), ("entries near -1e4", -1e4, 1.0, F64),
               ("entries near +1e4", 1e4, 1.0, F64), ("float32 entries of size 1e4", 0.0, 1e4, F32))
STABILITY_EXAMPLE = tuple(m + (100,) for m in _MAGNITUDES)
STABILITY_CASES = tuple(m + (100 + seed,) for seed in (1, 2) for m in _MAGNITUDES)

# masked rows: (shape, dim, keepdim, dtype, seed); along dim, the first row is fully masked, the second partly
MASKED_EXAMPLE = (((3, 4), 1, False, F64, 700),)
MASKED_CASES = (((3, 4), 1, False, F64, 701), ((4, 3), 0, True, F64, 702), ((3, 5), -1, True, F32, 703),
                ((2, 3, 4), 1, False, F64, 704))

# shapes: (shape, seed) with every dim (negative too) and both keepdim values
SHAPE_EXAMPLE = (((3, 3), 200), ((2, 3, 4), 210))
SHAPE_CASES = (((3, 3), 220), ((2, 3, 4), 230), ((4, 1, 3), 250), ((5,), 270), ((2, 2, 2), 280))

# None for dim and keepdim: (dim, keepdim, seed)
NONE_EXAMPLE = ((1, False, 301),)
NONE_CASES = ((1, False, 302), (0, True, 300), (-1, False, 303), (-2, True, 304))

# gradcheck and gradgradcheck: (shape, dim, keepdim, seed); keepdim=True first, so that a wrong derivative is
# not blamed on unsqueeze
_KEEPDIM_FIRST = sorted(CASES, key=lambda case: not case[2])
GRADCHECK_EXAMPLE = tuple(case + (400 + k,) for k, case in enumerate(_KEEPDIM_FIRST))
GRADCHECK_CASES = tuple(case + (400 + 10 * seed + k,) for seed in (1, 2) for k, case in enumerate(_KEEPDIM_FIRST))
GRADGRAD_EXAMPLE = tuple(case + (450 + k,) for k, case in enumerate(CASES[:3]))
GRADGRAD_CASES = tuple(case + (460 + k,) for k, case in enumerate(CASES[3:]))

# vmap: (shape of the batch, dim, keepdim, in_dims, seed) for vmap itself, then vmap(grad) and vmap(jvp)
VMAP_EXAMPLE = (((5, 4, 3), 0, False, 0, 500), ((5, 4, 3), -1, True, 0, 500), ((5, 4, 3), 1, False, 1, 500))
VMAP_CASES = VMAP_EXAMPLE + (((3, 2, 5), 1, True, 2, 510), ((4, 3, 3), -2, False, 0, 511))

# forward mode, the Function's own jvp: (shape, dim, keepdim, dtype, also gradcheck's forward-AD check, seed)
FORWARD_EXAMPLE = (((2, 3), 1, False, F64, True, 805), ((2, 3, 4), 1, True, F64, False, 806))
FORWARD_CASES = tuple((shape, dim, keepdim, F32 if k % 3 == 2 else F64, seed == 0 and k % 3 != 2,
                       800 + 10 * seed + k) for seed in (0, 1) for k, (shape, dim, keepdim) in enumerate(CASES))

# torch.func's forward-mode transforms: (transform, shape, dim, keepdim, seed)
TRANSFORM_EXAMPLE = (("jvp", (2, 3), 1, False, 940), ("jacfwd", (2, 3), 1, False, 941),
                     ("hessian", (3, 4), 1, False, 960))
TRANSFORM_CASES = (("jvp", (3, 3), 1, False, 942), ("jvp", (2, 3, 4), -1, True, 943), ("jvp", (4, 2), 0, False, 944),
                   ("jacfwd", (3, 3), 1, False, 950), ("jacfwd", (2, 3, 4), -1, True, 951),
                   ("jacfwd", (4, 2), 0, False, 952), ("hessian", (5,), 0, False, 961),
                   ("hessian", (2, 3, 2), 1, True, 962))

# memory: (shape, dim, keepdim, seed), on inputs the value tests use too
MEMORY_EXAMPLE = (((3, 3), 1, False, 600),)
MEMORY_CASES = (((2, 3, 4), -1, False, 601), ((2, 3, 4), 1, True, 602), ((4, 4), 0, False, 603))


# ------------------------------------------------------------------------------------------ the rules

SETUP_CONTEXT_MSG = "must override the setup_context staticmethod"
NO_JVP_MSG = "You must implement the jvp function"
NO_VMAP_MSG = "override the vmap staticmethod or set generate_vmap_rule=True"
SIZE_MSG = "Trying to set a forward gradient that has a different size"
COUNT_MSG = "jvp returned an invalid number of forward gradients"
BROADCAST = r"must match the size of tensor|is not broadcastable|Attempting to broadcast|shape mismatch"

# What torch.func and a reduction's broadcast raise on a LogSumExp that is not written for them, in plain words.
RULES = (
    Rule("no-setup-context", SETUP_CONTEXT_MSG,
         "{what}: torch.func refused your Function (\"" + SETUP_CONTEXT_MSG + "\"). Its forward takes ctx: "
         "write forward(x, dim, keepdim) without ctx, and save what backward needs in a separate "
         "@staticmethod setup_context(ctx, inputs, output).", types=(RuntimeError,)),
    Rule("no-vmap-rule", r"does not have vmap support|" + NO_VMAP_MSG,
         "{what}: vmap does not know how to batch your Function (jacfwd and hessian batch with vmap too). "
         "Add the class attribute generate_vmap_rule = True (vmap then runs your methods on batched "
         "tensors itself).", types=(RuntimeError, NotImplementedError)),
    Rule("no-vmap-rule", NO_VMAP_MSG, "{what}: vmap does not know how to batch your Function. Add the class "
         "attribute generate_vmap_rule = True (vmap then runs your methods on batched tensors itself).",
         mistake="not-implemented"),
    Rule("leaves-torch", r"Cannot access data pointer of Tensor that doesn't have storage|expected np\.ndarray",
         "{what}: your forward or backward leaves torch (NumPy, .item(), .tolist()). Under torch.func the "
         "tensors are wrappers without storage of their own: write both methods with torch operations.",
         types=(RuntimeError, TypeError)),
    Rule("no-unsqueeze", BROADCAST, "{what}: {line}. " + literal(EXPAND_HINT), types=(RuntimeError,)),
    Rule("wrong-signature", "positional argument",
         "{what} raised TypeError: {line}. In the torch.func style forward takes only the inputs "
         "(forward(x, dim, keepdim), no ctx), setup_context takes (ctx, inputs, output), backward takes "
         "(ctx, grad_output), jvp takes (ctx, x_t, dim_t, keepdim_t).", types=(TypeError,)),
)

# What forward mode raises on a jvp that is missing or malformed, tried before RULES.
FORWARD_RULES = (
    Rule("no-jvp", NO_JVP_MSG,
         "{what}: PyTorch refused (\"" + NO_JVP_MSG + " for custom autograd.Function to use it with forward mode "
         "AD\"). torch.func.jvp, jacfwd and hessian (jacfwd of jacrev) run forward mode: add a @staticmethod "
         "jvp(ctx, x_t, dim_t, keepdim_t) to LogSumExp. " + literal(JVP_HINT), mistake="not-implemented"),
    Rule("no-jvp", NO_JVP_MSG,
         "{what}: PyTorch refused (\"" + NO_JVP_MSG + " for custom autograd.Function to use it with forward mode "
         "AD\"). torch.func.jvp, jacfwd and hessian (jacfwd of jacrev) run forward mode: add a @staticmethod "
         "jvp(ctx, x_t, dim_t, keepdim_t) to LogSumExp. " + literal(JVP_HINT), types=(NotImplementedError,)),
    Rule("no-save-for-forward", r"not enough values to unpack.*got 0|tuple index out of range",
         "{what}: jvp found nothing in ctx.saved_tensors ({line}). Tensors saved with ctx.save_for_backward "
         "are for backward only: in setup_context, also call ctx.save_for_forward(x, output).",
         types=(ValueError, IndexError)),
    Rule("wrong-tangent-shape", SIZE_MSG,
         "{what}: jvp returned a tangent whose shape is not the output's ({line}). Sum over dim with "
         "keepdim=ctx.keepdim, so that the tangent has the output's shape for both keepdim values.",
         types=(RuntimeError,)),
    Rule("jvp-arity", COUNT_MSG,
         "{what}: {line}. jvp returns one tangent per output of forward (LogSumExp has one output), not one value "
         "per input as backward does: return a single tensor, no Nones.", types=(RuntimeError,)),
    c.NOT_IMPLEMENTED,
) + RULES

# jvp called directly: a broadcast error there is the saved output without its reduced dim.
JVP_RULES = (
    Rule("no-unsqueeze", BROADCAST,
         "{what}: {line}. grad_output is not involved here: with keepdim=False the saved output lacks the reduced "
         "dim, so unsqueeze(ctx.dim) the saved output before exp(x - output), as in backward; then sum over dim "
         "with keepdim=ctx.keepdim.", types=(RuntimeError,)),
) + FORWARD_RULES


# ------------------------------------------------------------------------------------------- helpers

def _require_function(LSE):
    c.require_function(LSE, NAME)


def _run(fn, *args, what: str, rules=RULES):
    """Learner code called with plain feedback on failure (common's engine rules first, then `rules`)."""
    with c.explained(what, rules):
        return c.call(fn, *args, what=what)


def _apply(LSE, x, dim, keepdim, what=None):
    what = what or f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)}"
    return _run(LSE.apply, x, dim, keepdim, what=what)


def _grads(y, x, g, what):
    with c.explained(what, RULES):
        return c.backward_grads(y, [x], g, what=what)


def _reference(x, dim, keepdim, g=None):
    """torch.logsumexp's value and gradient (for grad_output g), computed in float64, returned in x's dtype."""
    leaf = x.detach().to(F64).requires_grad_(True)
    with torch.enable_grad():
        out = torch.logsumexp(leaf, dim, keepdim)
        weight = torch.ones_like(out) if g is None else g.detach().to(F64)
        (grad,) = torch.autograd.grad(out, [leaf], weight)
    return out.detach().to(x.dtype), grad.to(x.dtype)


def _reference_jvp(x, dim, keepdim, t):
    value, tangent = torch.func.jvp(lambda u: torch.logsumexp(u, dim, keepdim), (x.detach().to(F64),),
                                    (t.detach().to(F64),))
    return value.to(x.dtype), tangent.to(x.dtype)


def _tolerance(x):
    x = x.detach()
    x = x[torch.isfinite(x)]
    if x.dtype == F64:
        return 1e-9, 1e-9
    return 1e-5, 1e-6 + 16 * torch.finfo(x.dtype).eps * (float(x.abs().max()) if x.numel() else 1.0)


def _require_output_shape(y, x, dim, keepdim):
    expected = torch.logsumexp(x.detach(), dim, keepdim)
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"LogSumExp.apply should return a tensor, got {type(y).__name__}.")
    if tuple(y.shape) != tuple(expected.shape):
        c.fail("wrong-output-shape",
               f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)} has shape {tuple(y.shape)}, "
               f"but torch.logsumexp gives {tuple(expected.shape)}: with keepdim=False the reduced dim disappears "
               "(squeeze it), with keepdim=True it stays, with size 1.")


def _check_case(LSE, x, dim, keepdim, seed, code_grad: str = "wrong-derivative", hint_grad=GRAD_HINT):
    what = f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)} ({x.dtype})"
    y = _apply(LSE, x, dim, keepdim)
    _require_output_shape(y, x, dim, keepdim)
    g = c.randn(*y.shape, seed=seed + 500, requires_grad=False, dtype=x.dtype)
    expected, expected_grad = _reference(x, dim, keepdim, g)
    rtol, atol = _tolerance(x)
    c.require_close(y, expected, what, "wrong-forward", VALUE_HINT, rtol=rtol, atol=atol)
    (grad,) = _grads(y, x, g, what=f"LogSumExp.backward (dim={dim}, keepdim={keepdim}, x of shape {tuple(x.shape)})")
    if grad is None:
        c.fail("no-graph", "x received no gradient: is the output connected to x through LogSumExp.apply?")
    c.require_close(grad, expected_grad, f"the gradient of {what}", code_grad, hint_grad, rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------------------------ values

def values(LSE, cases=VALUE_EXAMPLE) -> None:
    """Value and gradient (for a random grad_output) against torch.logsumexp, in x's dtype."""
    _require_function(LSE)
    for shape, dim, keepdim, dtype, seed in cases:
        _check_case(LSE, c.randn(*shape, seed=seed, dtype=dtype), dim, keepdim, seed)


# --------------------------------------------------------------------------------------------- stability

def stability(LSE, cases=STABILITY_EXAMPLE) -> None:
    """Values and gradients stay finite and accurate at magnitudes 1e4 (overflow and underflow)."""
    _require_function(LSE)
    for label, shift, scale, dtype, seed in cases:
        base = c.randn(4, 6, seed=seed, requires_grad=False, dtype=F64) * scale + shift
        x = base.to(dtype).requires_grad_(True)
        y = _apply(LSE, x, 1, False)
        _require_output_shape(y, x, 1, False)
        if not bool(torch.isfinite(y).all()):
            c.fail("overflow", f"LogSumExp.apply(x, 1, False) for {label} returned {y.detach().tolist()}: exp "
                               "overflowed (or underflowed to log(0)). " + SHIFT_HINT)
        g = torch.ones(4, dtype=dtype)
        (grad,) = _grads(y, x, g, what=f"LogSumExp.backward for {label}")
        if grad is not None and not bool(torch.isfinite(grad).all()):
            c.fail("unstable-backward", f"the gradient of LogSumExp for {label} contains inf or nan. " + SHIFT_HINT)
        expected, expected_grad = _reference(x, 1, False, g)
        rtol, atol = _tolerance(x)
        c.require_close(y, expected, f"LogSumExp.apply(x, 1, False) for {label}", "inaccurate-forward",
                        SHIFT_HINT, rtol=rtol, atol=atol)
        grad_atol = 1e-9 if dtype == F64 else 16 * torch.finfo(dtype).eps * float(x.detach().abs().max())
        c.require_close(grad, expected_grad, f"the gradient of LogSumExp for {label}", "inaccurate-backward",
                        SHIFT_HINT, rtol=1e-6, atol=grad_atol)


def _masked(shape, dim, dtype, seed):
    """A random x whose first row along `dim` is all -inf and whose second has two -inf entries; the rows
    that keep a finite entry (a boolean mask over the output's positions, keepdim=False)."""
    x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype)
    moved = x.movedim(dim, -1)                     # a view: rows along dim are its last axis
    flat = moved.reshape(-1, moved.shape[-1])
    flat[0] = -float("inf")
    flat[1, : max(1, moved.shape[-1] // 2)] = -float("inf")
    moved.copy_(flat.reshape(moved.shape))
    return x, torch.isfinite(x).any(dim)


def masked_rows(LSE, cases=MASKED_EXAMPLE) -> None:
    """Rows with -inf entries (masked positions) and a fully masked row: the value of torch.logsumexp (-inf for
    the fully masked row, never nan), and its gradient on every row that keeps a finite entry. (On a fully
    masked row torch.logsumexp's own gradient is nan, pytorch#49724: it is not compared.)"""
    _require_function(LSE)
    for shape, dim, keepdim, dtype, seed in cases:
        x, kept = _masked(shape, dim, dtype, seed)
        x.requires_grad_(True)
        what = f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape} with masked (-inf) entries"
        y = _apply(LSE, x, dim, keepdim, what=what)
        _require_output_shape(y, x, dim, keepdim)
        expected, _ = _reference(x, dim, keepdim)
        flat_y, flat_expected = y.detach().reshape(kept.shape), expected.reshape(kept.shape)
        if bool(torch.isnan(flat_y[~kept]).any()):
            c.fail("masked-row-nan", f"{what}: a row whose entries are all -inf gave nan, where torch.logsumexp "
                                     "gives -inf. " + MASK_HINT)
        rtol, atol = _tolerance(x)
        c.require_close(flat_y, flat_expected, what, "wrong-forward", VALUE_HINT, rtol=rtol, atol=atol)
        g = c.randn(*y.shape, seed=seed + 1, requires_grad=False, dtype=dtype)
        (grad,) = _grads(y, x, g, what=f"LogSumExp.backward for {what}")
        _, expected_grad = _reference(x, dim, keepdim, g)
        rows = kept.unsqueeze(dim).expand_as(x)
        c.require_close(grad[rows], expected_grad[rows], f"the gradient of {what}, on the rows that keep a finite "
                        "entry", "wrong-derivative", "a masked entry gets gradient 0 (exp(-inf - output) = 0), the "
                        "others softmax(x) along dim times grad_output. " + GRAD_HINT, rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------------------------ shapes

def shapes(LSE, cases=SHAPE_EXAMPLE) -> None:
    """Output and gradient shapes for every dim (negative too) and both keepdim values, with a random
    grad_output; square inputs catch a grad_output broadcast along the wrong dimension."""
    _require_function(LSE)
    for shape, seed in cases:
        k = 0
        for dim in range(-len(shape), len(shape)):
            for keepdim in (True, False):   # keepdim=True first: a wrong derivative is not blamed on unsqueeze
                x = c.randn(*shape, seed=seed + k)
                _check_case(LSE, x, dim, keepdim, seed + k, "wrong-derivative" if keepdim else "no-unsqueeze",
                            GRAD_HINT if keepdim else EXPAND_HINT)
                k += 1


# ------------------------------------------------------------------------------------------ None for dim

def _setup(LSE, x, dim, keepdim, needs=(True, False, False)):
    """forward (or forward(ctx, ...)) and setup_context called directly with a stand-in ctx: (output, ctx)."""
    ctx = behaviour.stand_in_ctx(NAME, needs)
    if c.uses_setup_context(LSE):
        out = _run(LSE.forward, x, dim, keepdim, what="LogSumExp.forward(x, dim, keepdim)")
        with torch.no_grad():
            _run(LSE.setup_context, ctx, (x, dim, keepdim), out, what="LogSumExp.setup_context(ctx, inputs, output)")
    else:
        out = _run(LSE.forward, ctx, x, dim, keepdim, what="LogSumExp.forward(ctx, x, dim, keepdim)")
    if not isinstance(out, torch.Tensor):
        c.fail("not-a-tensor", f"LogSumExp.forward should return a tensor, got {type(out).__name__}.")
    return out, ctx


def none_for_dim_and_keepdim(LSE, cases=NONE_EXAMPLE) -> None:
    """backward called directly returns exactly (grad_x, None, None)."""
    _require_function(LSE)
    for dim, keepdim, seed in cases:
        x = c.randn(3, 4, seed=seed, requires_grad=False)
        out, ctx = _setup(LSE, x, dim, keepdim)
        grads = _run(LSE.backward, ctx, torch.ones_like(out),
                     what=f"LogSumExp.backward called directly (dim={dim}, keepdim={keepdim})")
        _none_verdict(grads, x, dim, keepdim, "")
        # The same with the node autograd made for LogSumExp.apply as backward's ctx (a stand-in can be recognised).
        leaf = x.detach().clone().requires_grad_(True)
        what = f"LogSumExp.backward with autograd's own node as its ctx (dim={dim}, keepdim={keepdim})"
        with c.explained(what, RULES):
            real = behaviour.backward_by_its_node(LSE, (leaf, dim, keepdim), torch.ones_like(out), what=what,
                                                  rules=RULES, as_returned=True)
        if real is not None:
            _none_verdict(real, x, dim, keepdim, "Called directly, your backward returned (grad_x, None, None); but "
                                                 "with the node autograd made for LogSumExp.apply as its ctx, ")


def _none_verdict(grads, x, dim, keepdim, lead: str) -> None:
    """What backward returned: exactly (grad_x of x's shape, None, None). `lead` starts the feedback when it is
    autograd's own node that was the ctx."""
    if isinstance(grads, torch.Tensor) or not isinstance(grads, (tuple, list)):
        c.fail("missing-none",
               f"{lead}LogSumExp.backward returned a single value, but forward takes three inputs (x, dim, "
               "keepdim): return (grad_x, None, None), None for the int dim and for the bool keepdim.")
    if len(grads) != 3:
        c.fail("wrong-arity",
               f"{lead}LogSumExp.backward returned {len(grads)} values, but forward takes three inputs (x, dim, "
               "keepdim): return (grad_x, None, None).")
    if grads[1] is not None or grads[2] is not None:
        c.fail("missing-none",
               f"{lead}LogSumExp.backward must return None for dim and for keepdim (they are an int and a bool, "
               f"not tensors), got {behaviour.type_name(grads[1])} and {behaviour.type_name(grads[2])}.")
    c.require_shape(grads[0], x.shape, f"{lead}the gradient of x returned by backward (dim={dim}, "
                    f"keepdim={keepdim})", "wrong-grad-shape")


# ---------------------------------------------------------------------------------- gradcheck, gradgrad

def gradcheck(LSE, cases=GRADCHECK_EXAMPLE) -> None:
    """float64 gradcheck of LogSumExp.apply over shapes, dims and keepdim."""
    _require_function(LSE)
    for shape, dim, keepdim, seed in cases:
        x = c.randn(*shape, seed=seed)
        what = f"LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
        with c.explained(what, RULES):
            c.gradcheck(lambda t: LSE.apply(t, dim, keepdim), (x,), what,
                        hint=EXPAND_HINT if not keepdim else GRAD_HINT)


def gradgradcheck(LSE, cases=GRADGRAD_EXAMPLE) -> None:
    """float64 gradgradcheck (backward differentiable, output saved and used)."""
    _require_function(LSE)
    for shape, dim, keepdim, seed in cases:
        x = c.randn(*shape, seed=seed)
        what = f"LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
        with c.explained(what, RULES):
            c.gradgradcheck(lambda t: LSE.apply(t, dim, keepdim), (x,), what, hint=TWICE_HINT)


# --------------------------------------------------------------------------------- forward mode, judged

class ThroughMethods(torch.autograd.Function):
    """A Function of the judge's made of LogSumExp's own static methods: forward, setup_context (with a stand-in
    ctx), backward and jvp, each called through the learner's proxies with tensors the judge holds. Forward-mode
    AD and gradcheck then run here, on those methods, and no transform runs on the learner's side."""

    @staticmethod
    def forward(LSE, x, dim, keepdim):
        return _run(LSE.forward, x, dim, keepdim, what="LogSumExp.forward(x, dim, keepdim)", rules=FORWARD_RULES)

    @staticmethod
    def setup_context(ctx, inputs, output):
        LSE, x, dim, keepdim = inputs
        ctx.LSE, ctx.stand_in = LSE, behaviour.stand_in_ctx(NAME, (True, False, False))
        with torch.no_grad():
            _run(LSE.setup_context, ctx.stand_in, (x.detach(), dim, keepdim), output.detach(),
                 what="LogSumExp.setup_context(ctx, inputs, output)", rules=FORWARD_RULES)

    @staticmethod
    def backward(ctx, grad_output):
        grads = _run(ctx.LSE.backward, ctx.stand_in.forward_mode(False), grad_output,
                     what="LogSumExp.backward(ctx, grad_output)", rules=FORWARD_RULES)
        return None, grads[0], None, None

    @staticmethod
    def jvp(ctx, _, x_t, dim_t, keepdim_t):
        return _jvp(ctx.LSE, ctx.stand_in, x_t)


def _jvp(LSE, stand_in, x_t):
    """LogSumExp.jvp called as forward mode calls it (what setup_context saved for forward, None for dim and
    keepdim); a returned tuple is named for what it is."""
    what = "LogSumExp.jvp(ctx, x_t, None, None), called as forward mode calls it"
    with torch.no_grad():
        tangent = _run(LSE.jvp, stand_in.forward_mode(), x_t, None, None, what=what, rules=JVP_RULES)
    stand_in.forward_mode(False)
    if isinstance(tangent, (tuple, list)):
        c.fail("jvp-arity", f"{what} returned {len(tangent)} values. jvp returns one tangent per output of forward "
                            "(LogSumExp has one output), not one value per input as backward does: return a single "
                            "tensor, no Nones.")
    if not isinstance(tangent, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor, got {type(tangent).__name__}.")
    return tangent


def _check_own_jvp(LSE, x, dim, keepdim, t, rows=None):
    """jvp called directly after setup_context, against torch.logsumexp's tangent (on `rows` of the output only,
    if given); a tangent that does not follow t is named as such."""
    what = f"LogSumExp.jvp for x of shape {tuple(x.shape)} ({x.dtype}), dim={dim}, keepdim={keepdim}"
    _, ctx = _setup(LSE, x, dim, keepdim)
    tangent = _jvp(LSE, ctx, t)
    _, expected = _reference_jvp(x, dim, keepdim, t)
    c.require_shape(tangent, expected.shape, f"the output's tangent from {what}", "wrong-tangent-shape")
    if rows is not None:
        tangent, expected = tangent.reshape(rows.shape)[rows], expected.reshape(rows.shape)[rows]
    rtol, atol = _tolerance(x)
    if not bool(torch.allclose(tangent, expected, rtol=rtol, atol=atol)):
        doubled = _jvp(LSE, ctx, 2 * t)
        doubled = doubled.reshape(rows.shape)[rows] if rows is not None else doubled
        if bool(torch.allclose(doubled, tangent, rtol=rtol, atol=atol)):
            c.fail("jvp-ignores-tangent",
                   f"{what}: the output's tangent is the same for the tangent x_t and for 2 * x_t, so your jvp "
                   "ignores the tangent it receives. The output's tangent is linear in x_t: "
                   "(exp(x - output) * x_t) summed over dim. " + JVP_HINT)
    c.require_close(tangent, expected, f"the output's tangent from {what}", "wrong-jvp", JVP_HINT,
                    rtol=rtol, atol=atol)
    # The same tangent under forward-mode AD itself, in the learner's process (LogSumExp.apply on a dual tensor):
    # there jvp's ctx is autograd's own node, which no answer can tell from real use.
    real_what = (f"forward-mode AD of LogSumExp.apply (x a dual tensor of shape {tuple(x.shape)}, {x.dtype}, "
                 f"dim={dim}, keepdim={keepdim})")
    real = _transform(LSE, "forward AD", x, dim, keepdim, what=real_what, tangent=t)
    lead = (f"Called directly after your setup_context, your jvp gave the right tangent; but under {real_what}, "
            "where its ctx is autograd's own node, ")
    if real is None:
        c.fail("wrong-jvp", f"{lead}the output has no tangent: jvp must compute it from what forward saved, whatever "
                            "the ctx. " + JVP_HINT)
    _, expected = _reference_jvp(x, dim, keepdim, t)
    c.require_shape(real, expected.shape, f"{lead}the output's tangent", "wrong-tangent-shape")
    if rows is not None:
        real, expected = real.reshape(rows.shape)[rows], expected.reshape(rows.shape)[rows]
    c.require_close(real, expected, f"{lead}the output's tangent", "wrong-jvp", JVP_HINT, rtol=rtol, atol=atol)


def forward_mode(LSE, cases=FORWARD_EXAMPLE) -> None:
    """The Function's own jvp, judged here: called directly after setup_context with random tangents and compared
    with torch.logsumexp's (rows with masked entries too; a fully masked row's tangent is nan in
    torch.logsumexp and is not compared); then gradcheck's forward-AD check (check_forward_ad=True) on
    ThroughMethods, for the (float64) cases that ask for it."""
    _require_function(LSE)
    for shape, dim, keepdim, dtype, with_gradcheck, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype)
        t = c.randn(*shape, seed=seed + 100, requires_grad=False, dtype=dtype)
        _check_own_jvp(LSE, x, dim, keepdim, t)
        if with_gradcheck:
            what = f"forward-mode gradcheck of LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
            with c.explained(what, FORWARD_RULES):
                c.gradcheck(lambda u: ThroughMethods.apply(LSE, u, dim, keepdim), (x.requires_grad_(True),), what,
                            code="wrong-jvp", hint=JVP_HINT, check_forward_ad=True, check_backward_ad=False,
                            check_undefined_grad=False)
    if len(cases) > 2:   # the hidden breadth: masked rows
        x, kept = _masked((3, 4), 1, F64, 970)
        t = c.randn(3, 4, seed=971, requires_grad=False)
        _check_own_jvp(LSE, x, 1, False, t, rows=kept)


# ------------------------------------------------------------------------------ torch.func's transforms

@c.probe
def transformed(LSE, how: str, x, dim: int, keepdim: bool, tangent=None, in_dims: int = 0):
    """In the learner's process (torch.func transforms the real Function, never a proxy of it): a transform of
    f(t) = LSE.apply(t, dim, keepdim) at x. Only the tensors it computes come back.

    how: "vmap" (with in_dims), "vmap(grad)" (per-sample gradients of f summed), "vmap(jvp)" (per-sample
    tangents, x and tangent batched on dim 0), "jvp" (the output and its tangent), "jacfwd" (the Jacobian),
    "hessian" (of f(t).sum()), "forward AD" (the output's tangent for x made a dual tensor with `tangent`, by
    autograd's forward mode rather than torch.func: None when the output has none).
    """

    def f(t):
        return behaviour.function_apply(LSE, t, dim, keepdim)

    if how == "vmap":
        return torch.func.vmap(f, in_dims=in_dims)(x)
    if how == "vmap(grad)":
        return torch.func.vmap(torch.func.grad(lambda t: f(t).sum()))(x)
    if how == "vmap(jvp)":
        return torch.func.vmap(lambda a, b: torch.func.jvp(f, (a,), (b,))[1])(x, tangent)
    if how == "jvp":
        return tuple(torch.func.jvp(f, (x,), (tangent,)))
    if how == "jacfwd":
        return torch.func.jacfwd(f)(x)
    if how == "hessian":
        return torch.func.hessian(lambda t: f(t).sum())(x)
    if how == "forward AD":
        with _FORWARD_AD.dual_level():
            out = f(_FORWARD_AD.make_dual(x, tangent))
            found = _FORWARD_AD.unpack_dual(out).tangent if isinstance(out, torch.Tensor) else None
            return None if found is None else found.clone()
    raise ValueError(f"unknown transform {how!r}")


def _transform(LSE, how, x, dim, keepdim, what, **options):
    return _run(functools.partial(transformed, LSE, how, dim=dim, keepdim=keepdim, **options), x, what=what,
                rules=FORWARD_RULES)


class _VmapInfo(c.FakeCtx):
    """What vmap passes to a Function's own vmap staticmethod as `info`."""

    def __init__(self, batch_size: int):
        self.batch_size = batch_size
        self.randomness = "error"


def _require_vmap_rule(LSE, seed: int) -> None:
    """Without generate_vmap_rule, vmap runs the Function's own vmap staticmethod: called here directly on a
    batch of two samples (so an answer that takes another path under a transform is judged on its own rule)."""
    if bool(LSE.generate_vmap_rule):
        return
    x = c.randn(3, 4, seed=seed, requires_grad=False)
    batch = torch.stack([x, 2 * x])
    what = "LogSumExp.vmap(info, in_dims, x, dim, keepdim), called as vmap calls it"
    result = _run(LSE.vmap, _VmapInfo(2), (0, None, None), batch, 1, False, what=what)
    got, dims = result if isinstance(result, (tuple, list)) and len(result) == 2 else (result, None)
    if not isinstance(got, torch.Tensor) or dims not in (0, (0,), [0]):
        c.fail("wrong-vmap", "LogSumExp.vmap must return (the batched output, its out_dims), here (tensor, 0) for "
                             "a batch on dimension 0.")
    c.require_close(got, torch.logsumexp(batch, 2), "LogSumExp.vmap on a batch of two samples", "wrong-vmap",
                    "each sample must get its own log-sum-exp along dim.")


def _require_torch_methods(LSE, shape, dim: int, keepdim: bool, seed: int) -> None:
    """What the transforms run, called here directly: forward on an x that requires grad must leave a history
    (torch operations, which vmap can batch), and backward's result must be differentiable again (grad of grad,
    jacrev and hessian differentiate it), with the right second derivative. So the transforms' points go to
    the Function's methods, not to whatever its `apply` does under a transform."""
    x = c.randn(*shape, seed=seed)
    what = f"LogSumExp.forward(x, {dim}, {keepdim}), called directly on an x that requires grad"
    out = _run(LSE.forward, x, dim, keepdim, what=what)
    c.require_close(out, torch.logsumexp(x.detach(), dim, keepdim), what, "wrong-forward", VALUE_HINT)
    if not out.requires_grad:
        c.fail("leaves-torch", f"{what} returned a tensor with no history: it leaves torch (NumPy, .item(), "
                               ".tolist()) or detaches. Under torch.func your forward runs on wrapped tensors "
                               "(batched ones, with generate_vmap_rule): write it with torch operations.")
    _, ctx = _setup(LSE, x, dim, keepdim)
    g = c.randn(*out.shape, seed=seed + 1, requires_grad=False)
    v = c.randn(*shape, seed=seed + 2, requires_grad=False)
    grads = _run(LSE.backward, ctx, g, what="LogSumExp.backward(ctx, grad_output), called directly")
    grad = grads[0] if isinstance(grads, (tuple, list)) and grads else grads
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (first,) = torch.autograd.grad(torch.logsumexp(leaf, dim, keepdim), [leaf], g, create_graph=True)
        (second,) = torch.autograd.grad(first, [leaf], v)
    c.require_close(grad, first.detach(), "LogSumExp.backward(ctx, grad_output) called directly", "wrong-derivative",
                    GRAD_HINT)
    if not grad.requires_grad:
        c.fail("not-twice-differentiable", "LogSumExp.backward, called directly with the x that setup_context saved "
                                           "(x requires grad), returned a gradient with no history. " + TWICE_HINT)
    (again,) = _run(lambda: torch.autograd.grad(grad, [x], v, allow_unused=True),
                    what="LogSumExp.backward's gradient, differentiated again")
    c.require_close(torch.zeros_like(x) if again is None else again.detach(), second,
                    "the derivative of LogSumExp.backward's result with respect to x", "not-twice-differentiable",
                    TWICE_HINT, rtol=1e-6, atol=1e-9)
    # The same second derivative through the node autograd made for LogSumExp.apply (the judge's double backward
    # asks the learner's process for it): a stand-in ctx can be recognised, autograd's own node cannot.
    leaf = x.detach().clone().requires_grad_(True)
    real = _run(LSE.apply, leaf, dim, keepdim, what=f"LogSumExp.apply(x, {dim}, {keepdim})")
    (real_first,) = _run(lambda: torch.autograd.grad(real, [leaf], g, create_graph=True),
                         what="LogSumExp.backward under autograd")
    c.require_close(real_first, first.detach(), f"the gradient of LogSumExp.apply(x, {dim}, {keepdim}) under autograd",
                    "wrong-derivative", GRAD_HINT)
    if not real_first.requires_grad:
        c.fail("not-twice-differentiable",
               "Called directly, LogSumExp.backward returned a gradient autograd can differentiate again; but under "
               "autograd (LogSumExp.apply) it has no history: your backward takes another path when autograd calls "
               "it. " + TWICE_HINT)
    (real_again,) = _run(lambda: torch.autograd.grad(real_first, [leaf], v, allow_unused=True),
                         what="LogSumExp.backward's gradient under autograd, differentiated again")
    c.require_close(torch.zeros_like(leaf) if real_again is None else real_again.detach(), second,
                    f"the second derivative of LogSumExp.apply(x, {dim}, {keepdim}) under autograd",
                    "not-twice-differentiable", TWICE_HINT, rtol=1e-6, atol=1e-9)


def vmap(LSE, cases=VMAP_EXAMPLE) -> None:
    """torch.func.vmap over LogSumExp (other in_dims too), per-sample gradients vmap(grad) and per-sample tangents
    vmap(jvp), run where LogSumExp lives (`transformed`) and compared here with torch.logsumexp's; then the
    Function's own vmap rule (if it has one instead of generate_vmap_rule) and the methods the transforms run,
    called here directly."""
    _require_function(LSE)
    for shape, dim, keepdim, in_dims, seed in cases:
        xb = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"torch.func.vmap(lambda t: LogSumExp.apply(t, {dim}, {keepdim}), in_dims={in_dims})"
        out = _transform(LSE, "vmap", xb, dim, keepdim, what=what, in_dims=in_dims)
        expected = torch.func.vmap(lambda t: torch.logsumexp(t, dim, keepdim), in_dims=in_dims)(xb)
        c.require_close(out, expected, f"{what}(x) for x of shape {shape}", "wrong-vmap",
                        "each sample must get its own log-sum-exp along dim.")
        sample_dim = dim if dim < 0 else dim + 1      # dim of one sample, in the batch stacked on dimension 0
        what = f"torch.func.vmap(torch.func.grad(lambda t: LogSumExp.apply(t, {dim}, {keepdim}).sum()))"
        per_sample = _transform(LSE, "vmap(grad)", xb, dim, keepdim, what=what)
        c.require_close(per_sample, torch.softmax(xb, sample_dim), f"{what}(x) (per-sample gradients: softmax(x))",
                        "wrong-derivative", GRAD_HINT)
        tb = c.randn(*shape, seed=seed + 1, requires_grad=False)
        what = f"torch.func.vmap of torch.func.jvp of LogSumExp.apply(t, {dim}, {keepdim})"
        tangents = _transform(LSE, "vmap(jvp)", xb, dim, keepdim, what=what, tangent=tb)
        expected = (torch.softmax(xb, sample_dim) * tb).sum(sample_dim, keepdim=keepdim)
        c.require_close(tangents, expected, f"{what} (per-sample tangents)", "wrong-jvp", JVP_HINT)
    _require_vmap_rule(LSE, 505)
    _require_torch_methods(LSE, (3, 3), 1, False, 506)


def forward_transforms(LSE, cases=TRANSFORM_EXAMPLE) -> None:
    """torch.func.jvp, jacfwd and hessian of LogSumExp, run where it lives (`transformed`) and compared here with
    the same transforms of torch.logsumexp."""
    _require_function(LSE)
    for how, shape, dim, keepdim, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"torch.func.{how} of LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape}"
        x64 = x.detach()
        rtol, atol = _tolerance(x)
        if how == "jvp":
            t = c.randn(*shape, seed=seed + 1, requires_grad=False)
            value, tangent = _transform(LSE, how, x, dim, keepdim, what=what, tangent=t)
            expected_value, expected = _reference_jvp(x, dim, keepdim, t)
            c.require_close(value, expected_value, f"the value returned by {what}", "wrong-forward", VALUE_HINT)
            c.require_shape(tangent, expected.shape, f"the output's tangent from {what}", "wrong-tangent-shape")
            c.require_close(tangent, expected, f"the output's tangent from {what}", "wrong-jvp", JVP_HINT,
                            rtol=rtol, atol=atol)
        elif how == "jacfwd":
            got = _transform(LSE, how, x, dim, keepdim, what=what)
            expected = torch.func.jacfwd(lambda u: torch.logsumexp(u, dim, keepdim))(x64)
            c.require_close(got, expected, what, "wrong-jvp", JVP_HINT, rtol=rtol, atol=atol)
        else:
            got = _transform(LSE, how, x, dim, keepdim, what=what)
            expected = torch.func.hessian(lambda u: torch.logsumexp(u, dim, keepdim).sum())(x64)
            c.require_close(got, expected, f"{what} (of its sum)", "wrong-hessian", HESSIAN_HINT,
                            rtol=rtol, atol=atol)


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
    _require_function(LSE)
    for shape, dim, keepdim, seed in cases:
        x = c.randn(*shape, seed=seed)
        facts = _run(functools.partial(kept_for_backward, LSE), x, dim, keepdim,
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
