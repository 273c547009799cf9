"""What the capstone's checks (notebook 14) share: LogSumExp's hints, the rule tables that turn what torch.func, forward
mode and a reduction's broadcast raise into mistakes (`RULES`, `FORWARD_RULES`, `JVP_RULES`; see
autograder/checks/explain.py), the calls of learner code made through them, and the references: torch.logsumexp and
its transforms, computed here."""

from __future__ import annotations

import torch
import torch.func

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule, literal
from autograder.checks.raw_errors import NO_JVP_MSG
from autograder.checks.torch_func.rules import F64, LEAVES_TORCH, NO_VMAP_RULE, no_setup_context


NAME = "LogSumExp"
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

# ------------------------------------------------------------------------------------------ the rules

# torch.func's own messages are recognised in raw_errors.py; the feedback notebooks 10 and 10b give in the same words
# comes from torch_func/rules.py.
SIZE_MSG = "Trying to set a forward gradient that has a different size"
COUNT_MSG = "jvp returned an invalid number of forward gradients"
BROADCAST = ("size-mismatch", "not-broadcastable", "cannot-broadcast", "shape-mismatch")   # raw_errors.RAW's codes

# What torch.func and a reduction's broadcast raise on a LogSumExp that is not written for them, in plain words.
RULES = (
    Rule("no-setup-context", error="no-setup-context", message=no_setup_context("forward(x, dim, keepdim)"),
         types=(RuntimeError,)),
    Rule("no-vmap-rule", error=("no-vmap-support", "no-vmap-rule"), message=NO_VMAP_RULE,
         types=(RuntimeError, NotImplementedError)),
    Rule("no-vmap-rule", mistake="not-implemented", error="no-vmap-rule", message="{what}: vmap does not know how to "
         "batch your Function. Add the class attribute generate_vmap_rule = True (vmap then runs your methods on "
         "batched tensors itself)."),
    Rule("leaves-torch", error=("no-storage", "numpy-scalar"), message=LEAVES_TORCH, types=(RuntimeError, TypeError)),
    Rule("no-unsqueeze", error=BROADCAST, message="{what}: {line}. " + literal(EXPAND_HINT), types=(RuntimeError,)),
    Rule("wrong-signature", error="wrong-signature", message=
         "{what} raised TypeError: {line}. In the torch.func style forward takes only the inputs "
         "(forward(x, dim, keepdim), no ctx), setup_context takes (ctx, inputs, output), backward takes "
         "(ctx, grad_output), jvp takes (ctx, x_t, dim_t, keepdim_t).", types=(TypeError,)),
)

# What forward mode raises on a jvp that is missing or malformed, tried before RULES: a NotImplementedError
# saying so, whether or not common's NOT_IMPLEMENTED already made it a mistake.
FORWARD_RULES = (
    Rule("no-jvp", mistake="not-implemented", error="no-jvp", message=
         "{what}: PyTorch refused (\"" + NO_JVP_MSG + " for custom autograd.Function to use it with forward mode "
         "AD\"). torch.func.jvp, jacfwd and hessian (jacfwd of jacrev) run forward mode: add a @staticmethod "
         "jvp(ctx, x_t, dim_t, keepdim_t) to LogSumExp. " + literal(JVP_HINT)),
    Rule("no-save-for-forward", error=("nothing-unpacked", "tuple-index"), message=
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
    Rule("no-unsqueeze", error=BROADCAST, message=
         "{what}: {line}. grad_output is not involved here: with keepdim=False the saved output lacks the reduced "
         "dim, so unsqueeze(ctx.dim) the saved output before exp(x - output), as in backward; then sum over dim "
         "with keepdim=ctx.keepdim.", types=(RuntimeError,)),
) + FORWARD_RULES


# ------------------------------------------------------------------------------------------- helpers

def require_logsumexp(LSE):
    c.require_function(LSE, NAME)


def run(fn, *args, what: str, rules=RULES):
    """Learner code called with plain feedback on failure (common's engine rules first, then `rules`)."""
    with c.explained(what, rules):
        return c.call(fn, *args, what=what)


def apply_lse(LSE, x, dim, keepdim, what=None):
    what = what or f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)}"
    return run(LSE.apply, x, dim, keepdim, what=what)


def grads_of(y, x, g, what):
    with c.explained(what, RULES):
        return c.backward_grads(y, [x], g, what=what)


def torch_logsumexp(x, dim, keepdim, g=None):
    """torch.logsumexp's value and gradient (for grad_output g), computed in float64, returned in x's dtype."""
    leaf = x.detach().to(F64).requires_grad_(True)
    with torch.enable_grad():
        out = torch.logsumexp(leaf, dim, keepdim)
        weight = torch.ones_like(out) if g is None else g.detach().to(F64)
        (grad,) = torch.autograd.grad(out, [leaf], weight)
    return out.detach().to(x.dtype), grad.to(x.dtype)


def torch_logsumexp_jvp(x, dim, keepdim, t):
    value, tangent = torch.func.jvp(lambda u: torch.logsumexp(u, dim, keepdim), (x.detach().to(F64),),
                                    (t.detach().to(F64),))
    return value.to(x.dtype), tangent.to(x.dtype)


def tolerance(x):
    x = x.detach()
    x = x[torch.isfinite(x)]
    if x.dtype == F64:
        return 1e-9, 1e-9
    return 1e-5, 1e-6 + 16 * torch.finfo(x.dtype).eps * (float(x.abs().max()) if x.numel() else 1.0)


def require_output_shape(y, x, dim, keepdim):
    expected = torch.logsumexp(x.detach(), dim, keepdim)
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"LogSumExp.apply should return a tensor, got {type(y).__name__}.")
    if tuple(y.shape) != tuple(expected.shape):
        c.fail("wrong-output-shape",
               f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)} has shape {tuple(y.shape)}, "
               f"but torch.logsumexp gives {tuple(expected.shape)}: with keepdim=False the reduced dim disappears "
               "(squeeze it), with keepdim=True it stays, with size 1.")


def in_logsumexp_shape(y, x, dim, keepdim):
    """The output viewed in torch.logsumexp's shape, for comparing its numbers: an output whose only fault is a kept or
    dropped reduced dim is the shapes test's (the view keeps the graph to the answer's backward)."""
    expected = torch.logsumexp(x.detach(), dim, keepdim)
    if not isinstance(y, torch.Tensor) or y.numel() != expected.numel():
        require_output_shape(y, x, dim, keepdim)
    return y.reshape(expected.shape)


def check_case(LSE, x, dim, keepdim, seed):
    """Value and gradient against torch.logsumexp (the output's shape is the shapes test's)."""
    what = f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)} ({x.dtype})"
    y = in_logsumexp_shape(apply_lse(LSE, x, dim, keepdim), x, dim, keepdim)
    g = c.randn(*y.shape, seed=seed + 500, requires_grad=False, dtype=x.dtype)
    expected, expected_grad = torch_logsumexp(x, dim, keepdim, g)
    rtol, atol = tolerance(x)
    c.require_float64_kept(y, expected, what, "forward")
    c.require_close(y, expected, what, "wrong-forward", VALUE_HINT, rtol=rtol, atol=atol)
    (grad,) = grads_of(y, x, g, what=f"LogSumExp.backward (dim={dim}, keepdim={keepdim}, x of shape {tuple(x.shape)})")
    if grad is None:
        c.fail("no-graph", "x received no gradient: is the output connected to x through LogSumExp.apply?")
    c.require_float64_kept(grad, expected_grad, f"the gradient of {what}", "backward")
    c.require_close(grad, expected_grad, f"the gradient of {what}", "wrong-derivative", GRAD_HINT, rtol=rtol, atol=atol)


def masked_input(shape, dim, dtype, seed):
    """A random x whose first row along `dim` is all -inf and whose second has two -inf entries; the rows
    that keep a finite entry (a boolean mask over the output's positions, keepdim=False)."""
    x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype)
    moved = x.movedim(dim, -1)                     # a view: rows along dim are its last axis
    flat = moved.reshape(-1, moved.shape[-1])
    flat[0] = -float("inf")
    flat[1, : max(1, moved.shape[-1] // 2)] = -float("inf")
    moved.copy_(flat.reshape(moved.shape))
    return x, torch.isfinite(x).any(dim)


def set_up_ctx(LSE, x, dim, keepdim, needs=(True, False, False)):
    """forward (or forward(ctx, ...)) and setup_context called directly with a stand-in ctx: (output, ctx)."""
    ctx = behaviour.stand_in_ctx(NAME, needs)
    if c.uses_setup_context(LSE):
        out = run(LSE.forward, x, dim, keepdim, what="LogSumExp.forward(x, dim, keepdim)")
        with torch.no_grad():
            run(LSE.setup_context, ctx, (x, dim, keepdim), out, what="LogSumExp.setup_context(ctx, inputs, output)")
    else:
        out = run(LSE.forward, ctx, x, dim, keepdim, what="LogSumExp.forward(ctx, x, dim, keepdim)")
    if not isinstance(out, torch.Tensor):
        c.fail("not-a-tensor", f"LogSumExp.forward should return a tensor, got {type(out).__name__}.")
    return out, ctx
