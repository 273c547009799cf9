"""The capstone's torch.func checks (notebook 14): vmap, vmap(grad), vmap(jvp), jvp, jacfwd and hessian of LogSumExp,
run where it lives (the probe `transformed`) and compared here: what batches or transforms the answer's values and
gradients with the answer's own untransformed results (whether those are right is the values test's), the tangents
(its jvp, this rule's) with torch.logsumexp's; and the methods the transforms run (its vmap rule, forward, backward),
called here directly."""

from __future__ import annotations

import functools

import torch
import torch.autograd.forward_ad as _FORWARD_AD
import torch.func

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.capstone.cases import TRANSFORM_EXAMPLE, VMAP_EXAMPLE
from autograder.checks.capstone.nones import require_nones_first
from autograder.checks.capstone.values import keepdim_judged
from autograder.checks.capstone.rules import (FORWARD_RULES, HESSIAN_HINT, JVP_HINT, NAME, apply_lse,
                                              torch_logsumexp_jvp, require_logsumexp, run, set_up_ctx, tolerance)
from autograder.checks.torch_func.methods import VmapInfo, batched_output, require_history


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
        # * 1.0: backward gets a grad_output of its own, not .sum()'s broadcast one (writing into it: values' rule)
        return torch.func.vmap(torch.func.grad(lambda t: (f(t) * 1.0).sum()))(x)
    if how == "vmap(jvp)":
        return torch.func.vmap(lambda a, b: torch.func.jvp(f, (a,), (b,))[1])(x, tangent)
    if how == "jvp":
        return tuple(torch.func.jvp(f, (x,), (tangent,)))
    if how == "jacfwd":
        return torch.func.jacfwd(f)(x)
    if how == "hessian":
        return torch.func.hessian(lambda t: (f(t) * 1.0).sum())(x)
    if how == "forward AD":
        with _FORWARD_AD.dual_level():
            out = f(_FORWARD_AD.make_dual(x, tangent))
            found = _FORWARD_AD.unpack_dual(out).tangent if isinstance(out, torch.Tensor) else None
            return None if found is None else found.clone()
    raise ValueError(f"unknown transform {how!r}")


def transform(LSE, how, x, dim, keepdim, what, **options):
    return run(functools.partial(transformed, LSE, how, dim=dim, keepdim=keepdim, **options), x, what=what,
               rules=FORWARD_RULES)


def _own_value(LSE, x, dim: int, keepdim: bool):
    """The answer's own LogSumExp.apply(x, dim, keepdim), untransformed: what a transform of it must agree with."""
    return apply_lse(LSE, x.detach(), dim, keepdim).detach()


def _own_gradient(LSE, x, dim: int, keepdim: bool, g=None):
    """The answer's own gradient of LogSumExp.apply(x, dim, keepdim) for grad_output g (ones by default), through
    autograd and its backward, untransformed."""
    leaf = x.detach().clone().requires_grad_(True)
    out = apply_lse(LSE, leaf, dim, keepdim)
    (grad,) = run(lambda: torch.autograd.grad(out, [leaf], torch.ones_like(out) if g is None else g.clone(),
                                              allow_unused=True), what="LogSumExp.backward under autograd")
    return torch.zeros_like(leaf) if grad is None else grad.detach()


def _per_sample(fn, xb, in_dims: int = 0):
    """fn applied to each sample of the batch xb (samples along in_dims), stacked on dimension 0."""
    return torch.stack([fn(sample) for sample in xb.unbind(in_dims)])


def _require_vmap_rule(LSE, seed: int) -> None:
    """Without generate_vmap_rule, vmap runs the Function's own vmap staticmethod: called here directly on a
    batch of two samples (so an answer that takes another path under a transform is judged on its own rule),
    against what LogSumExp.apply gives for each sample."""
    if bool(LSE.generate_vmap_rule):
        return
    x = c.randn(3, 4, seed=seed, requires_grad=False)
    batch = torch.stack([x, 2 * x])
    what = "LogSumExp.vmap(info, in_dims, x, dim, keepdim), called as vmap calls it"
    result = run(LSE.vmap, VmapInfo(2), (0, None, None), batch, 1, False, what=what)
    got = batched_output(result, NAME)
    c.require_close(got, _per_sample(lambda t: _own_value(LSE, t, 1, False), batch),
                    "LogSumExp.vmap on a batch of two samples", "wrong-vmap",
                    "each sample must get what LogSumExp.apply gives for it alone.")


def _require_torch_methods(LSE, shape, dim: int, keepdim: bool, seed: int) -> None:
    """What the transforms run, called here directly: forward on an x that requires grad must leave a history
    (torch operations, which vmap can batch) and give what LogSumExp.apply gives, and backward called directly
    what backward gives under autograd. So the transforms' points go to the Function's methods, not to whatever
    its `apply` does under a transform. (Whether those values and second derivatives are right is the values,
    gradcheck and gradgradcheck tests'.)"""
    x = c.randn(*shape, seed=seed) * 1.0  # not a leaf: a forward changing x in place (the values' rule) can run
    what = f"LogSumExp.forward(x, {dim}, {keepdim}), called directly on an x that requires grad"
    out = run(LSE.forward, x, dim, keepdim, what=what)
    c.require_close(out, _own_value(LSE, x, dim, keepdim), what, "wrong-vmap",
                    "forward called directly must return what LogSumExp.apply returns.")
    require_history(out, what)
    _, ctx = set_up_ctx(LSE, x, dim, keepdim)
    g = c.randn(*out.shape, seed=seed + 1, requires_grad=False)
    # copies of g, here and in _own_gradient: a backward that writes into grad_output is the values test's rule
    grads = run(lambda: LSE.backward(ctx, g.clone()), what="LogSumExp.backward(ctx, grad_output), called directly")
    grad = grads[0] if isinstance(grads, (tuple, list)) and grads else grads
    c.require_close(grad, _own_gradient(LSE, x, dim, keepdim, g), "LogSumExp.backward(ctx, grad_output) called "
                    "directly", "wrong-vmap", "backward called directly must return what it returns under autograd.")


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def vmap(LSE, cases=VMAP_EXAMPLE) -> None:
    """torch.func.vmap over LogSumExp (other in_dims too), per-sample gradients vmap(grad) and per-sample tangents
    vmap(jvp), run where LogSumExp lives (`transformed`) and compared here with the answer's own untransformed
    results for each sample (LogSumExp.apply, its gradient; the tangents with torch.logsumexp's: the jvp is this
    rule's); then the Function's own vmap rule (if it has one instead of generate_vmap_rule) and the methods the
    transforms run, called here directly."""
    require_logsumexp(LSE)
    require_nones_first(LSE, "per-sample gradients (torch.func.vmap of torch.func.grad through backward)")
    judged = keepdim_judged(LSE)   # keepdim=False's own part of backward is the shapes test's
    def one_case(shape, dim, keepdim, in_dims, seed) -> None:
        keepdim = judged(keepdim)
        xb = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"torch.func.vmap(lambda t: LogSumExp.apply(t, {dim}, {keepdim}), in_dims={in_dims})"
        out = transform(LSE, "vmap", xb, dim, keepdim, what=what, in_dims=in_dims)
        expected = _per_sample(lambda t: _own_value(LSE, t, dim, keepdim), xb, in_dims)
        c.require_close(out, expected, f"{what}(x) for x of shape {shape}", "wrong-vmap",
                        "each sample must get what LogSumExp.apply gives for it alone.")
        sample_dim = dim if dim < 0 else dim + 1      # dim of one sample, in the batch stacked on dimension 0
        what = f"torch.func.vmap(torch.func.grad(lambda t: LogSumExp.apply(t, {dim}, {keepdim}).sum()))"
        per_sample = transform(LSE, "vmap(grad)", xb, dim, keepdim, what=what)
        c.require_close(per_sample, _per_sample(lambda t: _own_gradient(LSE, t, dim, keepdim), xb),
                        f"{what}(x) (per-sample gradients)", "wrong-vmap",
                        "each sample's gradient must be what LogSumExp's backward gives for it alone.")
        tb = c.randn(*shape, seed=seed + 1, requires_grad=False)
        what = f"torch.func.vmap of torch.func.jvp of LogSumExp.apply(t, {dim}, {keepdim})"
        tangents = transform(LSE, "vmap(jvp)", xb, dim, keepdim, what=what, tangent=tb)
        expected = (torch.softmax(xb, sample_dim) * tb).sum(sample_dim, keepdim=keepdim)
        c.require_close(tangents, _in_shape_of(expected, tangents), f"{what} (per-sample tangents)", "wrong-jvp",
                        JVP_HINT)
    with c.precision_elsewhere():   # a float32 inside is the values rule's: one mistake, one rule
        c.each(cases, lambda case: one_case(*case))
        _require_vmap_rule(LSE, 505)
        _require_torch_methods(LSE, (3, 3), 1, judged(False), 506)


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def forward_transforms(LSE, cases=TRANSFORM_EXAMPLE) -> None:
    """torch.func.jvp, jacfwd and hessian of LogSumExp, run where it lives (`transformed`) and compared here with
    the same transforms of torch.logsumexp."""
    require_logsumexp(LSE)
    require_nones_first(LSE, "the hessian (forward mode through backward)")
    judged = keepdim_judged(LSE)   # the hessian runs backward, whose keepdim=False part is the shapes test's
    def one_case(how, shape, dim, keepdim, seed) -> None:
        keepdim = judged(keepdim) if how == "hessian" else keepdim
        x = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"torch.func.{how} of LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape}"
        x64 = x.detach()
        rtol, atol = tolerance(x)
        if how == "jvp":
            t = c.randn(*shape, seed=seed + 1, requires_grad=False)
            value, tangent = transform(LSE, how, x, dim, keepdim, what=what, tangent=t)
            _, expected = torch_logsumexp_jvp(x, dim, keepdim, t)
            c.require_close(value, _own_value(LSE, x, dim, keepdim), f"the value returned by {what}", "wrong-vmap",
                            "under torch.func.jvp, LogSumExp must return what LogSumExp.apply returns.")
            c.require_shape(tangent, value.shape, f"the output's tangent from {what}", "wrong-tangent-shape")
            c.require_close(tangent, _in_shape_of(expected, tangent), f"the output's tangent from {what}",
                            "wrong-jvp", JVP_HINT, rtol=rtol, atol=atol)
        elif how == "jacfwd":
            got = transform(LSE, how, x, dim, keepdim, what=what)
            expected = torch.func.jacfwd(lambda u: torch.logsumexp(u, dim, keepdim))(x64)
            c.require_close(got, _in_shape_of(expected, got), what, "wrong-jvp", JVP_HINT, rtol=rtol, atol=atol)
        else:
            # hessian is forward mode (the jvp) through backward: against the answer's own second derivative by
            # reverse mode, so that a wrong backward or a backward that is not differentiable again costs the
            # derivative and double-backward rules, not this one.
            own = _own_hessian(LSE, x, dim, keepdim)
            if own is None:
                return  # backward's gradient has no history: the double-backward rule's (gradgradcheck)
            got = transform(LSE, how, x, dim, keepdim, what=what)
            c.require_close(got, own, f"{what} (of its sum)", "wrong-hessian", HESSIAN_HINT, rtol=rtol, atol=atol)
    with c.precision_elsewhere():   # a float32 inside is the values rule's: one mistake, one rule
        c.each(cases, lambda case: one_case(*case))


def _in_shape_of(expected, got):
    """torch.logsumexp's result in the shape of the answer's (an output shape is the shapes test's, and a tangent
    must have the answer's own output's shape, which forward mode enforces itself)."""
    if isinstance(got, torch.Tensor) and got.numel() == expected.numel():
        return expected.reshape(got.shape)
    return expected


def _own_hessian(LSE, x, dim: int, keepdim: bool):
    """The Hessian of LSE.apply(x, dim, keepdim).sum() by reverse mode twice through the answer's own backward (None
    if backward's gradient has no history to differentiate)."""
    leaf = x.detach().clone().requires_grad_(True)
    out = apply_lse(LSE, leaf, dim, keepdim)
    (first,) = run(lambda: torch.autograd.grad((out * 1.0).sum(), [leaf], create_graph=True),
                   what="LogSumExp.backward under autograd")
    if not first.requires_grad:
        return None
    rows = []
    for k in range(leaf.numel()):
        (row,) = run(lambda: torch.autograd.grad(first.reshape(-1)[k], [leaf], retain_graph=True, allow_unused=True),
                     what="LogSumExp.backward's gradient, differentiated again")
        rows.append(torch.zeros_like(leaf) if row is None else row.detach())
    return torch.stack(rows).reshape(*leaf.shape, *leaf.shape)
