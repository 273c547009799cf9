"""Checks of Softplus (notebook 10b): `Softplus.apply(x)` returns log(1 + exp(x)), finite for |x| up to 1e4, with
a jvp, under jvp, jacfwd, hessian and vmap (the contract: torch_func/__init__.py)."""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

from autograder.checks import common as c
from autograder.checks.torch_func.methods import ALL_PARTS, own_jvp, require_own_methods, set_up
from autograder.checks.torch_func.probes import dual_tangent, under_func
from autograder.checks.torch_func.rules import (F32, F64, direct, forward_changes_inputs, gradchecked,
                                               require_kept_guarded, require_split_style, run)


# ------------------------------------------------------------------------------------------ Softplus
# A case is ("points", values, dtype, grad_output) (None: ones), ("random", seed, shape, scale), ("gradcheck",
# seed, shape, scale), ("jvp", x values or (seed, shape), tangent seed), ("jacfwd", ...), ("dual", seed, shape),
# ("hessian", x, weight seed or None), ("gradgradcheck", seed, shape), ("vmap", seed, shape, in_dims),
# ("vmap(jvp)", seed, shape) or ("methods", seed, shape, with jvp).

SOFTPLUS = "Softplus"
DERIVATIVE_HINT = ("d softplus(x)/dx = exp(x) / (1 + exp(x)) = sigmoid(x): compute it with torch.sigmoid(x), which "
                   "never overflows.")
STABLE_HINT = ("exp(x) overflows to inf above x = 88 in float32 and x = 709 in float64, and log(1 + exp(x)) with it. "
               "Rewrite softplus so that exp only ever sees a number <= 0: take the larger term out of the log, as "
               "the log-sum-exp trick of notebook 07 does (log(1 + exp(x)) = log(exp(0) + exp(x))).")
TANGENT_HINT = ("jvp(ctx, x_t) receives the input's tangent x_t and returns the output's tangent: the derivative "
                "sigmoid(x) times the tangent, with x read from ctx.saved_tensors (saved in setup_context with "
                "ctx.save_for_forward(x)).")
SOFTPLUS_TWICE_HINT = ("torch.func.hessian is jacfwd(jacrev(f)): it differentiates the operations of your backward "
                       "in forward mode. Build backward from differentiable torch operations on the saved x (the "
                       "derivative is sigmoid, which torch computes without overflow): no .detach(), no NumPy, no "
                       "torch.no_grad().")
SOFTPLUS_SHAPES = [(), (4,), (2, 3), (2, 3, 4)]
EXTREMES = (-1e4, -800.0, -40.0, -0.0, 40.0, 800.0, 1e4)


def _tolerance(dtype):
    """(rtol, atol) against F.softplus, whose threshold (x > 20 returns x) is itself off by at most exp(-20)."""
    return (1e-9, 1e-12) if dtype == torch.float64 else (1e-5, 1e-7)


def _bad_entries(tensor, x) -> str:
    """The inputs at which `tensor` is inf or NaN, in words."""
    bad = ~torch.isfinite(tensor.detach())
    values = sorted({float(v) for v in x.detach()[bad].reshape(-1)})[:4]
    kinds = sorted({"NaN" if v != v else "inf" for v in tensor.detach()[bad].reshape(-1).tolist()})
    return f"{' and '.join(kinds)} at x = {', '.join(f'{v:g}' for v in values)}"


def _require_softplus(y, x, what: str) -> None:
    if isinstance(y, torch.Tensor) and tuple(y.shape) == tuple(x.shape) and not bool(torch.isfinite(y.detach()).all()):
        c.fail("overflow", f"{what} is {_bad_entries(y, x)}: {STABLE_HINT}")
    # Relative to the value itself, down to the smallest normal number: softplus(-40) is 4e-18, which
    # log(1 + exp(x)) rounds to 0 (1 + tiny is 1) where log1p keeps it, the accuracy the lesson asks for.
    rtol, atol = _tolerance(x.dtype)[0], torch.finfo(x.dtype).tiny
    c.require_float64_kept(y, F.softplus(x.detach()), what, "forward")
    c.require_close(y, F.softplus(x.detach()), what, "wrong-forward",
                    "forward should return log(1 + exp(x)), accurate also where it is tiny (compare with "
                    "torch.nn.functional.softplus; log(1 + t) rounds a tiny t away, torch.log1p(t) keeps it).",
                    rtol=rtol, atol=atol)


def _require_derivative(got, x, scale, what: str, code: str = "wrong-derivative", hint: str = DERIVATIVE_HINT) -> None:
    """`got` must be scale * sigmoid(x): a gradient (scale = grad_output) or a tangent (scale = x_t)."""
    if isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(x.shape) and not bool(torch.isfinite(got).all()):
        c.fail("derivative-overflow",
               f"{what} is {_bad_entries(got, x)}: exp(x) / (1 + exp(x)) is inf / inf there. " + DERIVATIVE_HINT)
    rtol, atol = _tolerance(x.dtype)
    c.require_close(got, scale * torch.sigmoid(x.detach()), what, code, hint, rtol=rtol, atol=atol)


def _softplus_methods(Softplus, seed: int, shape, jvp: bool = True,
                      parts: str = " ".join(sorted(ALL_PARTS))) -> None:
    if parts == "twice" and not c.uses_setup_context(Softplus):
        return  # the style is torch.func's (jvp, jacfwd, vmap judge it); the Hessian cases judge a ctx-style backward
    x = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False)
    require_own_methods(Softplus, SOFTPLUS, x, F.softplus, seed=seed, jvp=jvp, tolerance=_tolerance(x.dtype),
                        dual=False, parts=parts.split())


def _values_case(Softplus, x, grad_output) -> None:
    shape = f"x of shape {tuple(x.shape)}, {x.dtype}"
    y = run(Softplus.apply, x, what=f"Softplus.apply(x) for {shape}")
    _require_softplus(y, x, f"Softplus.apply(x) for {shape}")
    if y.dtype != x.dtype:
        c.fail("wrong-dtype", f"Softplus.apply(x) for {shape} has dtype {y.dtype}: keep x's dtype.")
    (grad,) = run(c.backward_grads, y, [x], grad_output, what="Softplus.backward")
    _require_derivative(grad, x, grad_output, f"the gradient of Softplus.apply(x) for {shape}")


def _points(Softplus, values, dtype, grad_scale) -> None:
    c.require_self_contained(Softplus, SOFTPLUS)
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    try:  # through .sum(), as losses are made: grad_output is one number broadcast, which backward must not write into
        y = run(Softplus.apply, x, what="Softplus.apply(x)")
        run(lambda: c.backward_grads(y.sum(), [x], what="Softplus.backward"), what="Softplus.backward")
    except c.Mistake as failed:
        if failed.code == "inplace-grad-output":
            raise   # (any other mistake met here: the case below names it)
    _values_case(Softplus, x, torch.full_like(x, grad_scale).detach())
    require_kept_guarded(Softplus, SOFTPLUS, values)


def _random_values(Softplus, seed, shape, scale) -> None:
    x = c.randn(*shape, seed=seed, scale=scale)
    _values_case(Softplus, x, c.randn(*shape, seed=seed + 10, requires_grad=False))


def _softplus_gradcheck(Softplus, seed, shape, scale) -> None:
    x = c.randn(*shape, seed=seed, scale=scale)
    gradchecked(Softplus.apply, (x,), f"Softplus on shape {shape}", DERIVATIVE_HINT, reference=F.softplus)


def _softplus_gradgradcheck(Softplus, seed, shape) -> None:
    x = c.randn(*shape, seed=seed, scale=2.0)
    if not _first_derivative_right(Softplus, x, None, f"the second derivatives of Softplus on shape {shape}"):
        return  # a first derivative that is not sigmoid (or a forward changing x): the values' rule, as in the Hessian
    # * 1.0: backward gets a grad_output of its own (writing into gradgradcheck's is the values' rule)
    gradchecked(lambda t: Softplus.apply(t) * 1.0, (x,), f"Softplus on shape {shape}", SOFTPLUS_TWICE_HINT,
                second=True, reference=F.softplus)


def _input(spec, dtype=F64, scale=4.0):
    """A tensor from a case: fixed values, or (seed, shape) of random ones."""
    if len(spec) == 2 and isinstance(spec[0], int) and isinstance(spec[1], tuple):
        seed, shape = spec
        return c.randn(*shape, seed=seed, scale=scale, requires_grad=False, dtype=dtype)
    return torch.tensor(spec, dtype=dtype)


def _softplus_jvp(Softplus, spec, tangent_seed, dtype=F64) -> None:
    """jvp called directly, as forward mode calls it, on what setup_context saved: (ctx, x_t) -> sigmoid(x) x_t."""
    require_split_style(Softplus, SOFTPLUS)
    x = _input(spec, dtype)
    t = c.randn(*x.shape, seed=tangent_seed, requires_grad=False, dtype=dtype)
    what = f"Softplus.jvp(ctx, x_t) for x of shape {tuple(x.shape)}, {x.dtype}, called as forward mode calls it"
    leaf = x.clone().requires_grad_(True)
    out = direct(Softplus.forward, leaf, what="Softplus.forward(x), called as torch.func calls it")
    tangent = own_jvp(Softplus, SOFTPLUS, set_up(Softplus, SOFTPLUS, (leaf,), out), (t,))
    if isinstance(tangent, torch.Tensor) and tangent.shape == x.shape and bool(torch.isfinite(tangent).all()) \
            and x.numel() > 1 and bool(torch.allclose(tangent, torch.sigmoid(x), rtol=1e-6, atol=1e-9)):
        c.fail("jvp-ignores-tangent",
               f"the tangent {what} returned is sigmoid(x), as if every input tangent were 1: your jvp ignores the "
               "tangent it receives. " + TANGENT_HINT)
    _require_derivative(tangent, x, t, f"the output tangent of {what}", code="wrong-jvp", hint=TANGENT_HINT)
    if forward_changes_inputs(Softplus, x):
        return  # the values' rule: autograd's own node would read the x forward changed (the direct call: the x given)
    # The same tangent under forward-mode AD itself (dual tensors, in the learner's process), where jvp's ctx is
    # autograd's own node: a stand-in ctx can be recognised, that node cannot.
    real_what = f"torch.autograd.forward_ad through Softplus.apply for x of shape {tuple(x.shape)}, {x.dtype}"
    real = run(functools.partial(dual_tangent, Softplus), x, t, what=real_what)
    _require_derivative(real, x, t, f"Called directly, your jvp gave the right tangent; but under {real_what}, where "
                        "its ctx is autograd's own node, the output tangent", code="wrong-jvp", hint=TANGENT_HINT)


def _jacfwd_case(Softplus, spec) -> None:
    x = _input(spec, scale=3.0)
    if forward_changes_inputs(Softplus, x):
        return  # the values' rule: jacfwd would see the x forward changed; this test's methods case judges jvp
    what = f"torch.func.jacfwd(Softplus.apply)(x) for x of shape {tuple(x.shape)}"
    try:
        jac = under_func(Softplus, "jacfwd", x, what=what)
    except c.Mistake as mistake:
        if mistake.code != "no-vmap-rule":
            raise
        # jacfwd batches its tangents with vmap, and vmap's rule is the vmap test's: the same Jacobian, one column
        # per one-hot tangent from torch.func.jvp, judges the jvp alone.
        what = f"torch.func.jvp(Softplus.apply, (x,), (e_i,)) for each one-hot e_i, x of shape {tuple(x.shape)}"
        columns = [under_func(Softplus, "jvp", x, tangent=e.reshape(x.shape), what=what)[1]
                   for e in torch.eye(x.numel(), dtype=x.dtype)]
        jac = torch.stack([col.reshape(-1) for col in columns], dim=-1).reshape(tuple(x.shape) * 2)
    n = x.numel()
    expected = torch.diag(torch.sigmoid(x).reshape(-1)).reshape(tuple(x.shape) * 2)
    if isinstance(jac, torch.Tensor) and tuple(jac.shape) == tuple(expected.shape) \
            and not bool(torch.isfinite(jac).all()):
        c.fail("derivative-overflow", f"{what} has inf or NaN entries. " + DERIVATIVE_HINT)
    hint = ("jacfwd calls your jvp with one one-hot tangent per entry of x (batched with vmap); the Jacobian of an "
            "elementwise function is diag(sigmoid(x)). " + TANGENT_HINT)
    if isinstance(jac, torch.Tensor) and tuple(jac.shape) == tuple(expected.shape) and n > 1:
        columns = jac.reshape(n, n)
        if bool(torch.allclose(columns, torch.sigmoid(x).reshape(-1, 1).expand(n, n), rtol=1e-6, atol=1e-9)):
            c.fail("jvp-ignores-tangent", f"{what} has sigmoid(x) in every column instead of on the diagonal: your "
                                          "jvp ignores the tangent it receives. " + TANGENT_HINT)
    c.require_close(jac, expected, what, "wrong-jacobian", hint, rtol=1e-9, atol=1e-12)


def _dual_case(Softplus, seed, shape) -> None:
    """Forward-mode AD with dual tensors (torch.autograd.forward_ad) through Softplus.apply, in the learner's
    process."""
    x = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False)
    t = c.randn(*shape, seed=seed + 1, requires_grad=False)
    if forward_changes_inputs(Softplus, x):
        return  # the values' rule: forward-mode AD would see the x forward changed; the methods case judges jvp
    got = run(functools.partial(dual_tangent, Softplus), x, t, what="torch.autograd.forward_ad through Softplus.apply")
    _require_derivative(got, x, t, "the tangent of Softplus.apply(x) under torch.autograd.forward_ad", code="wrong-jvp",
                        hint="forward-mode AD calls your jvp: the derivative times x_t.")


def _hessian_case(Softplus, spec, weight_seed) -> None:
    """The Hessian of (Softplus.apply(x) * w).sum(), reverse over reverse through the learner's backward, here (w = 1:
    backward gets a grad_output of its own, not .sum()'s broadcast one, which writing into is the values' rule)."""
    x = _input(spec, scale=3.0)
    w = None if weight_seed is None else c.randn(*x.shape, seed=weight_seed, requires_grad=False)
    what = (f"the Hessian of {'(Softplus.apply(x) * w)' if w is not None else 'Softplus.apply(x)'}.sum() for x of "
            f"shape {tuple(x.shape)}, through your backward twice")
    if not _first_derivative_right(Softplus, x, w, what):
        return  # a derivative mistake: the values test judges it, and no Hessian of the reference is its derivative
    rows = []
    for e in torch.eye(x.numel(), dtype=x.dtype):
        leaf = x.clone().requires_grad_(True)
        y = run(Softplus.apply, leaf, what=f"Softplus.apply(x) for x of shape {tuple(x.shape)}")
        (first,) = run(lambda: torch.autograd.grad((y * (1.0 if w is None else w)).sum(), [leaf], create_graph=True),
                       what="Softplus.backward")
        if isinstance(first, torch.Tensor) and not first.requires_grad:
            c.fail("not-twice-differentiable", f"{what}: backward's gradient has no history, so autograd cannot "
                                               "differentiate it again. " + SOFTPLUS_TWICE_HINT)
        (row,) = run(lambda: torch.autograd.grad(first, [leaf], e.reshape(x.shape), allow_unused=True),
                     what="Softplus.backward's gradient, differentiated again")
        rows.append(row if row is not None else torch.zeros_like(x))
    hess = torch.stack(rows).reshape(tuple(x.shape) * 2)
    s = torch.sigmoid(x)
    expected = torch.diag((s * (1 - s) * (w if w is not None else 1.0)).reshape(-1)).reshape(tuple(x.shape) * 2)
    if not bool(torch.isfinite(hess).all()):
        c.fail("derivative-overflow", f"{what} has inf or NaN entries. " + DERIVATIVE_HINT)
    c.require_close(hess, expected, what, "not-twice-differentiable",
                    "the second derivative of softplus is sigmoid(x) * (1 - sigmoid(x)). " + SOFTPLUS_TWICE_HINT,
                    rtol=1e-9, atol=1e-12)


def _first_derivative_right(Softplus, x, w, what) -> bool:
    """Whether the gradient of (Softplus.apply(x) * w).sum() through the learner's backward is w * sigmoid(x); where
    it is not, it must still have a history (backward made of operations autograd can differentiate again)."""
    leaf = x.clone().requires_grad_(True)
    y = run(Softplus.apply, leaf, what=f"Softplus.apply(x) for x of shape {tuple(x.shape)}")
    (first,) = run(lambda: torch.autograd.grad((y * (1.0 if w is None else w)).sum(), [leaf], create_graph=True),
                   what="Softplus.backward")
    if isinstance(first, torch.Tensor) and not first.requires_grad:
        c.fail("not-twice-differentiable", f"{what}: backward's gradient has no history, so autograd cannot "
                                           "differentiate it again. " + SOFTPLUS_TWICE_HINT)
    expected = torch.sigmoid(x) * (1.0 if w is None else w)
    rtol, atol = _tolerance(x.dtype)
    return isinstance(first, torch.Tensor) and first.shape == x.shape and bool(
        torch.allclose(first.detach(), expected, rtol=rtol, atol=atol))


def _softplus_vmap(Softplus, seed, shape, in_dims) -> None:
    xb = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False) if seed is not None \
        else torch.tensor(EXTREMES, dtype=F64)
    label = "torch.func.vmap(Softplus.apply" + (f", in_dims={in_dims})" if in_dims else ")")
    out = under_func(Softplus, "vmap", xb, in_dims=in_dims, what=label)
    _require_softplus(out.movedim(0, in_dims) if isinstance(out, torch.Tensor) and out.dim() > in_dims else out,
                      xb, f"{label}(x) for x of shape {tuple(xb.shape)}")


def _softplus_vmap_jvp(Softplus, seed, shape) -> None:
    xb, tb = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False), c.randn(*shape, seed=seed + 1,
                                                                                requires_grad=False)
    if forward_changes_inputs(Softplus, xb):
        return  # the values' rule: the transforms would see the x forward changed; the methods case judges jvp
    try:
        tangents = under_func(Softplus, "vmap(jvp)", xb, tangent=tb,
                              what="torch.func.vmap(lambda x, t: torch.func.jvp(Softplus.apply, (x,), (t,))[1])")
    except c.Mistake as mistake:
        if mistake.code != "no-vmap-rule":
            raise
        # vmap's rule is the vmap test's: the same tangents, one sample at a time, judge the jvp alone
        tangents = torch.stack([under_func(Softplus, "jvp", xi, tangent=ti, what="torch.func.jvp(Softplus.apply, "
                                           "(x,), (t,)) for each sample")[1] for xi, ti in zip(xb, tb)])
    _require_derivative(tangents, xb, tb, "per-sample tangents vmap(jvp(...))", code="wrong-jvp", hint=TANGENT_HINT)


SOFTPLUS_CASE_CHECKS = {"points": _points, "random": _random_values, "gradcheck": _softplus_gradcheck,
                        "jvp": _softplus_jvp, "jacfwd": _jacfwd_case, "dual": _dual_case, "hessian": _hessian_case,
                        "gradgradcheck": _softplus_gradgradcheck, "vmap": _softplus_vmap,
                        "vmap(jvp)": _softplus_vmap_jvp, "methods": _softplus_methods}


def _softplus_cases(Softplus, cases) -> None:
    c.require_function(Softplus, SOFTPLUS)
    def one_case(case) -> None:
        kind, *params = case
        SOFTPLUS_CASE_CHECKS[kind](Softplus, *params)
    c.each(cases, one_case)


SOFTPLUS_VALUES_CASES = (("points", (-1e4, -100.0, -30.0, 30.0, 100.0, 1e4), F32, 1.0),) + tuple(
    ("random", 100 + seed, shape, scale) for seed, shape in enumerate(SOFTPLUS_SHAPES) for scale in (3.0, 1e3))
SOFTPLUS_GRADCHECK_CASES = tuple(("gradcheck", 120, shape, 1.0) for shape in SOFTPLUS_SHAPES) + (
    ("gradcheck", 121, (2, 3), 5.0), ("gradcheck", 122, (5,), 8.0))
# Each test's methods case judges its own rule's part (require_own_methods): jvp and jacfwd the jvp (jacfwd is vmap
# of jvp; vmap's rule is the vmap test's: without one, jacfwd's cases take jvp sample by sample), hessian a backward
# autograd can differentiate again (its Hessian is the reference's where its first derivative is), vmap a forward in
# torch operations and the vmap rule; the forward's values at the extremes are softplus_values' alone.
SOFTPLUS_JVP_CASES = tuple(("jvp", (130 + k, shape), 140 + k) for k, shape in enumerate(SOFTPLUS_SHAPES)) + (
    ("jvp", EXTREMES, 150, F64), ("jvp", EXTREMES, 151, F32), ("methods", 136, (2, 3), True, "jvp"))
SOFTPLUS_JACFWD_CASES = (("jacfwd", (160, (2, 3))), ("jacfwd", (-1e4, -50.0, 50.0, 1e4)), ("dual", 162, (2, 3)),
                         ("vmap(jvp)", 182, (5, 3)), ("methods", 166, (4,), True, "jvp"))
SOFTPLUS_HESSIAN_CASES = (("hessian", (170, (2, 3)), 171), ("hessian", (-1e4, -50.0, 50.0, 1e4), None),
                          ("gradgradcheck", 175, (4,)), ("gradgradcheck", 176, (2, 3)),
                          ("methods", 173, (2, 3), False, "twice"))
SOFTPLUS_VMAP_CASES = (("vmap", 180, (4, 3), 0), ("vmap", 181, (3, 4, 2), 1), ("vmap", 183, (7,), 0),
                       ("methods", 186, (2, 3), False, "forward vmap"))


def softplus_values(Softplus, cases=(("points", (-3.0, -0.5, 0.0, 0.5, 3.0), F64, 2.0),
                                     ("points", EXTREMES, F64, 1.0))) -> None:
    """Values and gradient through ordinary autograd: a small float64 example and the extremes +-1e4 (the table:
    float32 extremes, random shapes, scales and seeds)."""
    _softplus_cases(Softplus, cases)


def softplus_gradcheck(Softplus, cases=(("gradcheck", 120, (4,), 2.0),)) -> None:
    """float64 gradcheck (the table: several shapes, scales and seeds)."""
    _softplus_cases(Softplus, cases)


@c.inputs_judged_elsewhere()  # a forward that changes its inputs in place: the values test's rule
def softplus_jvp(Softplus, cases=(("jvp", (-2.0, 0.5, 3.0), 135), ("methods", 135, (3,), True, "jvp"))) -> None:
    """Softplus.jvp, called in the judge as forward mode calls it: the tangent sigmoid(x) * t (the table: random
    shapes and tangents, the extremes, float32)."""
    _softplus_cases(Softplus, cases)


@c.inputs_judged_elsewhere()  # a forward that changes its inputs in place: the values test's rule
def softplus_jacfwd(Softplus, cases=(("jacfwd", (-1.0, 0.25, 2.0)),
                                     ("methods", 165, (3,), True, "jvp"))) -> None:
    """torch.func.jacfwd(Softplus.apply) (a probe) is diag(sigmoid(x)); the table adds shape (2, 3), the extremes,
    forward-mode AD with dual tensors and per-sample jvp (vmap of jvp; probes too)."""
    _softplus_cases(Softplus, cases)


@c.inputs_judged_elsewhere()  # a forward changing its inputs, a backward writing into grad_output: the values' rules
def softplus_hessian(Softplus, cases=(("hessian", (-1.0, 0.25, 2.0), None),
                                      ("methods", 172, (3,), False, "twice"))) -> None:
    """What torch.func.hessian needs of Softplus, verified in the judge: the Hessian diag(sigmoid(x)(1 - sigmoid(x)))
    through backward twice, and the methods called directly (the table: a weighted sum, the extremes,
    gradgradcheck)."""
    _softplus_cases(Softplus, cases)


@c.inputs_judged_elsewhere()  # a forward that changes its inputs in place: the values test's rule
def softplus_vmap(Softplus, cases=(("vmap", 180, (4, 3), 0),
                                   ("methods", 185, (4,), False, "forward vmap"))) -> None:
    """torch.func.vmap(Softplus.apply) (a probe) is softplus sample by sample; the table adds in_dims=1 and other
    shapes. A float32 inside is the values test's (precision_elsewhere)."""
    with c.precision_elsewhere():
        _softplus_cases(Softplus, cases)
