"""Checks of ScaledProduct (notebook 10b): `ScaledProduct.apply(x, y, alpha)` returns alpha * x * y, with a jvp
that adds both tangents' terms (the contract: torch_func/__init__.py)."""

from __future__ import annotations

import functools

import torch

from autograder.checks import common as c
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.torch_func.methods import own_jvp, set_up
from autograder.checks.torch_func.probes import dual_tangents
from autograder.checks.torch_func.rules import (F32, F64, direct, forward_changes_inputs, gradchecked,
                                               require_each_kept_guarded, require_split_style, run)


# ------------------------------------------------------------------------------------------ ScaledProduct
# A case is ("values", seed, shape, alpha), ("gradcheck", seed, shape, alpha), ("jvp", seed, shape, alpha, which
# tangents: "x", "y" or "both", dtype) or ("central", seed, shape, alpha): jvp against central differences of apply.

SCALED = "ScaledProduct"
PRODUCT_HINT = "the gradients of alpha * x * y are grad_output * alpha * y for x, grad_output * alpha * x for y, None for alpha."
JVP_TWO_HINT = ("jvp(ctx, x_t, y_t, alpha_t) returns the output's tangent: one term per tensor input, its derivative "
                "times its tangent, alpha * (x_t * y + x * y_t). Forward mode hands jvp one tangent per input of "
                "forward: None for alpha (a float has no tangent) and, on torch 2.13, zeros for a tensor input that "
                "has none. Read x and y from what setup_context saved with ctx.save_for_forward, alpha from ctx.")


def _scaled_inputs(seed, shape, dtype=F64, requires_grad=True):
    return (c.randn(*shape, seed=seed, requires_grad=requires_grad, dtype=dtype),
            c.randn(*shape, seed=seed + 1, requires_grad=requires_grad, dtype=dtype))


def _scaled_values(Fn, seed, shape, alpha) -> None:
    c.require_self_contained(Fn, SCALED)
    x, y = _scaled_inputs(seed, shape)
    what = f"ScaledProduct.apply(x, y, {alpha}) for x, y of shape {shape}"
    out = run(Fn.apply, x, y, alpha, what=what)
    c.require_float64_kept(out, alpha * x.detach() * y.detach(), what, "forward")
    c.require_close(out, alpha * x.detach() * y.detach(), what, "wrong-forward", "forward returns alpha * x * y.",
                    rtol=1e-10, atol=1e-12)   # float64 to its last digits: an alpha rounded to float32 is off by 1e-8
    require_grad_output_kept(lambda: [(run(Fn.apply, a, b, alpha, what=what), [a, b]) for a, b in (
        _scaled_inputs(seed + 50, shape), _scaled_inputs(seed + 60, shape))], f"the gradient of {what}, summed",
        SCALED, ("x", "y", "alpha"))
    g = c.randn(*shape, seed=seed + 2, requires_grad=False)
    grad_x, grad_y = run(c.backward_grads, out, [x, y], g, what="ScaledProduct.backward")
    for name, got, expected in (("x", grad_x, g * alpha * y.detach()), ("y", grad_y, g * alpha * x.detach())):
        c.require_float64_kept(got, expected, f"the gradient for {name} of {what}", "backward")
        c.require_close(got, expected, f"the gradient for {name} of {what}", "wrong-derivative", PRODUCT_HINT,
                        rtol=1e-10, atol=1e-12)
    # x and y changed in place after forward, one at a time: backward raises or is unaffected (decision: a tensor kept
    # as a ctx attribute escapes the version counter; the values' rule, ScaledProduct having no saving rule)
    require_each_kept_guarded(lambda a, b: Fn.apply(a, b, alpha), [x.detach(), y.detach()], SCALED, ("x", "y"),
                              f"ScaledProduct.apply(x, y, {alpha})")
    _require_own_alpha(Fn, seed, shape, alpha)


def _require_own_alpha(Fn, seed, shape, alpha) -> None:
    """A call's backward uses its own alpha, whatever calls came between it and its backward (alpha kept on ctx, not
    on the class or a global): the learner's own gradient of one call left alone, against the same call's with a
    call of another alpha in between (whether the gradient is right is the cases' above)."""
    other = alpha + 1.25
    g = c.randn(*shape, seed=seed + 3, requires_grad=False)

    def first_gradients(between: bool):
        x, y = _scaled_inputs(seed + 70, shape)
        out = run(Fn.apply, x, y, alpha, what=f"ScaledProduct.apply(x, y, {alpha})")
        if between:
            a, b = _scaled_inputs(seed + 80, shape)
            run(Fn.apply, a, b, other, what=f"ScaledProduct.apply(u, v, {other})")
        return run(c.backward_grads, out, [x, y], g, what="ScaledProduct.backward")

    alone, after = first_gradients(False), first_gradients(True)
    for name, got, expected in zip(("x", "y"), after, alone):
        if isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor) and got.shape == expected.shape \
                and not bool(torch.allclose(got, expected, rtol=1e-12, atol=1e-14)):
            c.fail("alpha-shared-state",
                   f"ScaledProduct.apply(x, y, {alpha}), then another call with alpha = {other} before the first "
                   f"call's backward: the gradient for {name} changed. Each call's backward must use that call's own "
                   "alpha: keep it on ctx (ctx.alpha = alpha), never on the class or a global, which the next call "
                   "overwrites.")


def _scaled_gradcheck(Fn, seed, shape, alpha) -> None:
    x, y = _scaled_inputs(seed, shape)
    gradchecked(lambda a, b: Fn.apply(a, b, alpha), (x, y), f"ScaledProduct(x, y, {alpha}) on shape {shape}",
                PRODUCT_HINT, reference=lambda a, b: alpha * a * b)


def _scaled_own_jvp(Fn, x, y, alpha, x_t, y_t):
    """The learner's forward, setup_context and jvp, called one by one as forward mode calls them."""
    require_split_style(Fn, SCALED)
    leaves = x.detach().clone().requires_grad_(True), y.detach().clone().requires_grad_(True)
    out = direct(Fn.forward, *leaves, alpha, what=f"ScaledProduct.forward(x, y, {alpha}), called as torch.func "
                 "calls it")
    # forward's values are the values' rule: jvp needs only the ctx that setup_context fills from this call
    tangent = own_jvp(Fn, SCALED, set_up(Fn, SCALED, (*leaves, alpha), out), (x_t, y_t, None))
    if isinstance(tangent, (tuple, list)):
        c.fail("jvp-arity",
               f"ScaledProduct.jvp returned {len(tangent)} values. backward returns one gradient per input; jvp goes "
               "the other way and returns one tangent per output of forward: here a single tensor, the output's "
               "tangent.")
    return tangent


def _scaled_jvp(Fn, seed, shape, alpha, which, dtype=F64) -> None:
    x, y = _scaled_inputs(seed, shape, dtype, requires_grad=False)
    t = c.randn(*shape, seed=seed + 5, requires_grad=False, dtype=dtype)
    zero = torch.zeros_like(t)
    x_t, y_t = {"x": (t, zero), "y": (zero, t), "both": (t, 2 * t.flip(-1) if t.dim() else -t)}[which]
    got = _scaled_own_jvp(Fn, x, y, alpha, x_t, y_t)
    expected = alpha * (x_t * y + x * y_t)
    pattern = {"x": "a tangent on x only", "y": "a tangent on y only", "both": "tangents on x and y"}[which]
    what = (f"ScaledProduct.jvp(ctx, x_t, y_t, None) with {pattern} (the other zeros, as torch 2.13 passes them), "
            f"shape {shape}, {dtype}")
    if which != "x" and isinstance(got, torch.Tensor) and got.shape == expected.shape and x.numel() > 0:
        ignored_y = alpha * x_t * y
        if bool(torch.allclose(got, ignored_y)) and not bool(torch.allclose(got, expected)):
            c.fail("jvp-ignores-tangent", f"{what}: your jvp gives alpha * x_t * y, the term of x alone: it ignores "
                                          "y_t, the tangent of y. " + JVP_TWO_HINT)
    rtol = 1e-9 if dtype == F64 else 1e-5
    c.require_close(got, expected, what, "wrong-jvp", JVP_TWO_HINT, rtol=rtol, atol=rtol * 1e-2)
    if forward_changes_inputs(Fn, x, y, alpha):
        return  # the values' rule: autograd's own node would read the x and y forward changed
    # The same tangent under forward-mode AD itself (x and y dual tensors, in the learner's process), where jvp's
    # ctx is autograd's own node: a stand-in ctx can be recognised, that node cannot.
    real = run(functools.partial(dual_tangents, Fn), (x, y, alpha), (x_t, y_t, None),
               what=f"torch.autograd.forward_ad through ScaledProduct.apply with {pattern}")
    c.require_close(real, expected, f"Called directly, your jvp gave the right tangent; but under forward-mode AD "
                    f"(x and y dual tensors, {pattern}), where its ctx is autograd's own node, the output tangent",
                    "wrong-jvp", JVP_TWO_HINT, rtol=rtol, atol=rtol * 1e-2)


def _scaled_central(Fn, seed, shape, alpha) -> None:
    """What gradcheck(check_forward_ad=True) does, in the judge: the learner's jvp against central differences of
    alpha * x * y (the reference forward: a wrong forward is the values' rule), along random tangents of x and y."""
    x, y = _scaled_inputs(seed, shape, requires_grad=False)
    x_t, y_t = c.randn(*shape, seed=seed + 7, requires_grad=False), c.randn(*shape, seed=seed + 8, requires_grad=False)
    eps = 1e-6
    plus = alpha * (x + eps * x_t) * (y + eps * y_t)
    minus = alpha * (x - eps * x_t) * (y - eps * y_t)
    numerical = (plus - minus) / (2 * eps)
    got = _scaled_own_jvp(Fn, x, y, alpha, x_t, y_t)
    c.require_close(got, numerical, f"ScaledProduct.jvp against central differences of ScaledProduct.apply (what "
                    f"gradcheck(..., check_forward_ad=True) compares), shape {shape}", "wrong-jvp", JVP_TWO_HINT,
                    rtol=1e-3, atol=1e-5)


SCALED_CASE_CHECKS = {"values": _scaled_values, "gradcheck": _scaled_gradcheck, "jvp": _scaled_jvp,
                      "central": _scaled_central}


def _scaled_cases(Fn, cases) -> None:
    c.require_function(Fn, SCALED)
    for kind, *params in cases:
        SCALED_CASE_CHECKS[kind](Fn, *params)


SCALED_VALUES_CASES = (("values", 200, (2, 3), -1.5), ("values", 202, (), 0.5), ("values", 204, (4,), 0.0),
                       ("values", 205, (2, 2), 0.1), ("gradcheck", 206, (3,), 2.0), ("gradcheck", 208, (2, 3), -0.5))
SCALED_JVP_CASES = tuple(("jvp", 210 + 10 * k, shape, alpha, which) for k, (shape, alpha) in
                         enumerate((((4,), 3.0), ((2, 3), -0.5), ((), 2.0))) for which in ("x", "y", "both")) + (
    ("jvp", 250, (2, 3), 1.5, "both", F32), ("central", 260, (3,), 2.0), ("central", 262, (2, 3), -1.25))


def scaled_values(ScaledProduct, cases=(("values", 200, (3,), 2.0),)) -> None:
    """alpha * x * y and its gradients (None for alpha) through ordinary autograd (the table: shapes, alphas,
    gradcheck)."""
    _scaled_cases(ScaledProduct, cases)


@c.inputs_judged_elsewhere()  # a forward that changes its inputs in place: the values test's rule
def scaled_jvp(ScaledProduct, cases=(("jvp", 230, (3,), 2.0, "y"), ("jvp", 231, (3,), 2.0, "both"))) -> None:
    """ScaledProduct.jvp, called in the judge as forward mode calls it (zeros for a tensor without a tangent, None
    for alpha), against alpha (x_t y + x y_t) (the table: every tangent pattern, shapes, float32, and central
    differences of apply)."""
    _scaled_cases(ScaledProduct, cases)
