"""The capstone's torch.func checks (notebook 14): vmap, vmap(grad), vmap(jvp), jvp, jacfwd and hessian of LogSumExp,
run where it lives (the probe `transformed`) and compared here with the same transforms of torch.logsumexp; and
the methods the transforms run (its vmap rule, forward, backward twice), called here directly."""

from __future__ import annotations

import functools

import torch
import torch.autograd.forward_ad as _FORWARD_AD
import torch.func

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.capstone.cases import TRANSFORM_EXAMPLE, VMAP_EXAMPLE
from autograder.checks.capstone.rules import (FORWARD_RULES, GRAD_HINT, HESSIAN_HINT, JVP_HINT, NAME, TWICE_HINT,
                                              VALUE_HINT, torch_logsumexp_jvp, require_logsumexp, run, set_up_ctx,
                                              tolerance)
from autograder.checks.torch_func.methods import (VmapInfo, batched_output, require_history,
                                                  require_history_under_autograd)


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


def transform(LSE, how, x, dim, keepdim, what, **options):
    return run(functools.partial(transformed, LSE, how, dim=dim, keepdim=keepdim, **options), x, what=what,
               rules=FORWARD_RULES)


def _require_vmap_rule(LSE, seed: int) -> None:
    """Without generate_vmap_rule, vmap runs the Function's own vmap staticmethod: called here directly on a
    batch of two samples (so an answer that takes another path under a transform is judged on its own rule)."""
    if bool(LSE.generate_vmap_rule):
        return
    x = c.randn(3, 4, seed=seed, requires_grad=False)
    batch = torch.stack([x, 2 * x])
    what = "LogSumExp.vmap(info, in_dims, x, dim, keepdim), called as vmap calls it"
    result = run(LSE.vmap, VmapInfo(2), (0, None, None), batch, 1, False, what=what)
    got = batched_output(result, NAME)
    c.require_close(got, torch.logsumexp(batch, 2), "LogSumExp.vmap on a batch of two samples", "wrong-vmap",
                    "each sample must get its own log-sum-exp along dim.")


def _require_torch_methods(LSE, shape, dim: int, keepdim: bool, seed: int) -> None:
    """What the transforms run, called here directly: forward on an x that requires grad must leave a history
    (torch operations, which vmap can batch), and backward's result must be differentiable again (grad of grad,
    jacrev and hessian differentiate it), with the right second derivative. So the transforms' points go to
    the Function's methods, not to whatever its `apply` does under a transform."""
    x = c.randn(*shape, seed=seed)
    what = f"LogSumExp.forward(x, {dim}, {keepdim}), called directly on an x that requires grad"
    out = run(LSE.forward, x, dim, keepdim, what=what)
    c.require_close(out, torch.logsumexp(x.detach(), dim, keepdim), what, "wrong-forward", VALUE_HINT)
    require_history(out, what)
    _, ctx = set_up_ctx(LSE, x, dim, keepdim)
    g = c.randn(*out.shape, seed=seed + 1, requires_grad=False)
    v = c.randn(*shape, seed=seed + 2, requires_grad=False)
    grads = run(LSE.backward, ctx, g, what="LogSumExp.backward(ctx, grad_output), called directly")
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
    (again,) = run(lambda: torch.autograd.grad(grad, [x], v, allow_unused=True),
                   what="LogSumExp.backward's gradient, differentiated again")
    c.require_close(torch.zeros_like(x) if again is None else again.detach(), second,
                    "the derivative of LogSumExp.backward's result with respect to x", "not-twice-differentiable",
                    TWICE_HINT, rtol=1e-6, atol=1e-9)
    # The same second derivative through the node autograd made for LogSumExp.apply (the judge's double backward
    # asks the learner's process for it): a stand-in ctx can be recognised, autograd's own node cannot.
    leaf = x.detach().clone().requires_grad_(True)
    real = run(LSE.apply, leaf, dim, keepdim, what=f"LogSumExp.apply(x, {dim}, {keepdim})")
    (real_first,) = run(lambda: torch.autograd.grad(real, [leaf], g, create_graph=True),
                        what="LogSumExp.backward under autograd")
    c.require_close(real_first, first.detach(), f"the gradient of LogSumExp.apply(x, {dim}, {keepdim}) under autograd",
                    "wrong-derivative", GRAD_HINT)
    require_history_under_autograd(real_first, NAME, TWICE_HINT)
    (real_again,) = run(lambda: torch.autograd.grad(real_first, [leaf], v, allow_unused=True),
                        what="LogSumExp.backward's gradient under autograd, differentiated again")
    c.require_close(torch.zeros_like(leaf) if real_again is None else real_again.detach(), second,
                    f"the second derivative of LogSumExp.apply(x, {dim}, {keepdim}) under autograd",
                    "not-twice-differentiable", TWICE_HINT, rtol=1e-6, atol=1e-9)


def vmap(LSE, cases=VMAP_EXAMPLE) -> None:
    """torch.func.vmap over LogSumExp (other in_dims too), per-sample gradients vmap(grad) and per-sample tangents
    vmap(jvp), run where LogSumExp lives (`transformed`) and compared here with torch.logsumexp's; then the
    Function's own vmap rule (if it has one instead of generate_vmap_rule) and the methods the transforms run,
    called here directly."""
    require_logsumexp(LSE)
    for shape, dim, keepdim, in_dims, seed in cases:
        xb = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"torch.func.vmap(lambda t: LogSumExp.apply(t, {dim}, {keepdim}), in_dims={in_dims})"
        out = transform(LSE, "vmap", xb, dim, keepdim, what=what, in_dims=in_dims)
        expected = torch.func.vmap(lambda t: torch.logsumexp(t, dim, keepdim), in_dims=in_dims)(xb)
        c.require_close(out, expected, f"{what}(x) for x of shape {shape}", "wrong-vmap",
                        "each sample must get its own log-sum-exp along dim.")
        sample_dim = dim if dim < 0 else dim + 1      # dim of one sample, in the batch stacked on dimension 0
        what = f"torch.func.vmap(torch.func.grad(lambda t: LogSumExp.apply(t, {dim}, {keepdim}).sum()))"
        per_sample = transform(LSE, "vmap(grad)", xb, dim, keepdim, what=what)
        c.require_close(per_sample, torch.softmax(xb, sample_dim), f"{what}(x) (per-sample gradients: softmax(x))",
                        "wrong-derivative", GRAD_HINT)
        tb = c.randn(*shape, seed=seed + 1, requires_grad=False)
        what = f"torch.func.vmap of torch.func.jvp of LogSumExp.apply(t, {dim}, {keepdim})"
        tangents = transform(LSE, "vmap(jvp)", xb, dim, keepdim, what=what, tangent=tb)
        expected = (torch.softmax(xb, sample_dim) * tb).sum(sample_dim, keepdim=keepdim)
        c.require_close(tangents, expected, f"{what} (per-sample tangents)", "wrong-jvp", JVP_HINT)
    _require_vmap_rule(LSE, 505)
    _require_torch_methods(LSE, (3, 3), 1, False, 506)


def forward_transforms(LSE, cases=TRANSFORM_EXAMPLE) -> None:
    """torch.func.jvp, jacfwd and hessian of LogSumExp, run where it lives (`transformed`) and compared here with
    the same transforms of torch.logsumexp."""
    require_logsumexp(LSE)
    for how, shape, dim, keepdim, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"torch.func.{how} of LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape}"
        x64 = x.detach()
        rtol, atol = tolerance(x)
        if how == "jvp":
            t = c.randn(*shape, seed=seed + 1, requires_grad=False)
            value, tangent = transform(LSE, how, x, dim, keepdim, what=what, tangent=t)
            expected_value, expected = torch_logsumexp_jvp(x, dim, keepdim, t)
            c.require_close(value, expected_value, f"the value returned by {what}", "wrong-forward", VALUE_HINT)
            c.require_shape(tangent, expected.shape, f"the output's tangent from {what}", "wrong-tangent-shape")
            c.require_close(tangent, expected, f"the output's tangent from {what}", "wrong-jvp", JVP_HINT,
                            rtol=rtol, atol=atol)
        elif how == "jacfwd":
            got = transform(LSE, how, x, dim, keepdim, what=what)
            expected = torch.func.jacfwd(lambda u: torch.logsumexp(u, dim, keepdim))(x64)
            c.require_close(got, expected, what, "wrong-jvp", JVP_HINT, rtol=rtol, atol=atol)
        else:
            got = transform(LSE, how, x, dim, keepdim, what=what)
            expected = torch.func.hessian(lambda u: torch.logsumexp(u, dim, keepdim).sum())(x64)
            c.require_close(got, expected, f"{what} (of its sum)", "wrong-hessian", HESSIAN_HINT,
                            rtol=rtol, atol=atol)
