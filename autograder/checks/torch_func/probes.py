"""The probes of the torch.func checks: torch.func's transforms and forward-mode AD need the real Function, so
these run in the learner's process and return only the tensors they computed (`probe` in
autograder/engine/shared.py); the exercises' checks compare them with references computed in the judge."""

from __future__ import annotations

import functools

import torch
import torch.func

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.torch_func.rules import F64, TRANSFORM_RULES, run


@c.probe
def transformed(Fn, how: str, x, args: tuple = (), weight=None, in_dims: int = 0, summed: bool = True,
                tangent=None):
    """In the learner's process (torch.func transforms the real Function, never a proxy of it): the transform
    `how` of f(t) = Fn.apply(t, *args), evaluated at x (`apply` as torch.autograd.Function defines it, so the
    transform runs Fn's own methods). Only the tensors it computes come back.

    how: "vmap" (with in_dims), "grad" (of f(t).sum(), or of (f(t) * weight).sum(); with summed=False, of f(t)
    itself), "vmap(grad)" (per-sample gradients), "grad(grad)" (the second derivative of f(t).sum(), summed),
    "jacrev", "jvp" (the pair (f(x), J tangent)), "vmap(jvp)" (per-sample, x and tangent batched on dim 0),
    "jacfwd", "hessian" (of the same scalar as "grad").
    """

    def f(t):
        return behaviour.function_apply(Fn, t, *args)

    def scalar(t):
        if not summed:
            return f(t)
        return f(t).sum() if weight is None else (f(t) * weight).sum()

    if how == "vmap":
        return torch.func.vmap(f, in_dims=in_dims)(x)
    if how == "grad":
        return torch.func.grad(scalar)(x)
    if how == "vmap(grad)":
        return torch.func.vmap(torch.func.grad(scalar))(x)
    if how == "grad(grad)":
        return torch.func.grad(lambda t: torch.func.grad(scalar)(t).sum())(x)
    if how == "jacrev":
        return torch.func.jacrev(f)(x)
    if how == "jvp":
        return tuple(torch.func.jvp(f, (x,), (tangent,)))
    if how == "vmap(jvp)":
        return torch.func.vmap(lambda a, b: torch.func.jvp(f, (a,), (b,))[1])(x, tangent)
    if how == "jacfwd":
        return torch.func.jacfwd(f)(x)
    if how == "hessian":
        return torch.func.hessian(scalar)(x)
    raise ValueError(f"unknown transform {how!r}")


def transform(Fn, how, x, options):
    with c.explained("torch.func", TRANSFORM_RULES):
        return transformed(Fn, how, x, **options)


def under_func(Fn, how: str, x, what: str, **options):
    """`transformed(Fn, how, x, **options)` with plain feedback on failure (see `run`)."""
    return run(functools.partial(transform, Fn, how, options=options), x, what=what)



@c.probe
def dual_tangent(Fn, x, t, args: tuple = ()):
    """In the learner's process: the output tangent of Fn.apply(x, *args) for the tangent t, in forward-mode AD
    with dual tensors (torch.autograd.forward_ad, no torch.func transform)."""
    import torch.autograd.forward_ad as fwad

    with fwad.dual_level():
        out = behaviour.function_apply(Fn, fwad.make_dual(x, t), *args)
        tangent = fwad.unpack_dual(out).tangent if isinstance(out, torch.Tensor) else None
    if tangent is None:
        raise RuntimeError(f"{getattr(Fn, '__name__', 'the Function')}.apply gave no tangent under forward_ad")
    return tangent


@c.probe
def dual_tangents(Fn, inputs: tuple, tangents: tuple):
    """In the learner's process: the output tangent of Fn.apply(*inputs) in forward-mode AD, each input with a
    tangent (None: none) made a dual tensor (torch.autograd.forward_ad, no torch.func transform)."""
    import torch.autograd.forward_ad as fwad

    with fwad.dual_level():
        duals = [x if t is None else fwad.make_dual(x, t) for x, t in zip(inputs, tangents)]
        out = behaviour.function_apply(Fn, *duals)
        tangent = fwad.unpack_dual(out).tangent if isinstance(out, torch.Tensor) else None
    if tangent is None:
        raise RuntimeError(f"{getattr(Fn, '__name__', 'the Function')}.apply gave no tangent under forward_ad")
    return tangent


@c.probe
def without_storage(Fn, shape) -> str:
    """In the learner's process: Fn's setup_context and backward called directly on tensors without storage (the
    meta device; an elementwise Function's output of x's shape), as torch.func's wrappers have none (grad runs
    backward on them). The error they raised, or "" (and "" for a Function not in the split style)."""
    if not c.uses_setup_context(Fn):
        return ""
    x = torch.empty(shape, dtype=F64, device="meta", requires_grad=True)
    out = torch.empty(shape, dtype=F64, device="meta")
    try:
        ctx = c.FakeCtx((True,))
        with torch.no_grad():
            Fn.setup_context(ctx, (x,), out)
        Fn.backward(ctx, torch.empty_like(out))
    except Exception as error:  # noqa: BLE001 - reported, in words
        return f"{type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}"
    return ""


def require_storage_free(Fn, name: str, shape) -> None:
    """backward runs on tensors without storage, as under torch.func.grad (a Function that detects the transforms'
    wrappers and takes another path does not see one in a meta tensor)."""
    error = run(functools.partial(without_storage, Fn), shape, what=f"{name}.backward on tensors without storage")
    if error:
        c.fail("leaves-torch",
               f"{name}.backward, called on tensors without storage (as torch.func's wrappers are), raised {error}: "
               "it leaves torch (NumPy, .item(), .tolist()), which torch.func.grad cannot run.")
