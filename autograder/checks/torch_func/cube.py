"""Checks of Cube (notebook 10): `Cube.apply(x)` returns x ** 3, in the torch.func style, under vmap, grad and
jacrev, and twice (the contract: torch_func/__init__.py)."""

from __future__ import annotations

import functools

import torch

from autograder.checks import common as c
from autograder.checks.torch_func.methods import ALL_PARTS, require_own_methods
from autograder.checks.torch_func.probes import require_storage_free, under_func
from autograder.checks.torch_func.rules import (TWICE_HINT, gradchecked, require_kept_guarded, require_split_style,
                                               run)
from autograder.checks.torch_func.setup_supplied import setup_supplied


CUBE = "Cube"
CUBE_SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
CUBE_HINT = "d(x**3)/dx = 3 * x**2, times grad_output."


# ---------------------------------------------------------------------------------------------- Cube
# A case is ("values",), ("gradcheck", seed, shape), ("gradgradcheck", seed, shape), ("vmap", seed, shape,
# in_dims), ("grad", seed, shape), ("vmap(grad)", seed, shape), ("jacobian", seed, shape), ("storage", shape)
# or ("methods", seed, shape, parts): Cube's own methods called directly (see require_own_methods), judged on the
# parts (space-separated) of the test's own rule.

def _cube_methods(Cube, seed: int, shape, parts: str = " ".join(sorted(ALL_PARTS))) -> None:
    if parts in ("twice", "backward") and not c.uses_setup_context(Cube):
        return  # the style is the transforms' rule; gradgradcheck and the Jacobian's rows from backward judge a
        #         ctx-style backward through autograd
    require_own_methods(Cube, CUBE, c.randn(*shape, seed=seed, requires_grad=False), lambda t: t ** 3, seed=seed,
                        parts=parts.split())


def _cube_storage(Cube, shape) -> None:
    require_split_style(Cube, CUBE)
    require_storage_free(Cube, CUBE, shape)


def _cube_values(Cube) -> None:
    x = torch.tensor([-1.5, 0.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)  # 0: where 3 * y / x is NaN
    y = run(Cube.apply, x, what="Cube.apply(x)")
    c.require_close(y, x.detach() ** 3, "Cube.apply(x)", "wrong-forward", "forward should return x ** 3.")
    # through .sum(), as losses are made: grad_output is one number broadcast, which backward must not write into
    run(c.backward_grads, run(Cube.apply, x, what="Cube.apply(x)").sum(), [x], what="Cube.backward")
    (grad,) = run(c.backward_grads, y, [x], torch.full_like(y, 2.0), what="Cube.backward")
    c.require_close(grad, 6 * x.detach() ** 2, "the gradient of Cube.apply(x) with grad_output = 2",
                    "wrong-derivative", CUBE_HINT)
    require_kept_guarded(Cube, CUBE, [-1.5, 0.5, 2.0])


def _cube_gradcheck(Cube, seed, shape, second=False) -> None:
    x = c.randn(*shape, seed=seed)
    if second and not _finite_first_derivative(Cube, x):
        x = (x.detach().abs() + 0.5).requires_grad_(True)  # a backward NaN for x < 0 is the values' rule; its
        #                                                    derivative is judged where it is defined
    # twice: a grad_output that is not gradgradcheck's own leaf, so that a backward writing into it (the values'
    # rule) is judged on its derivative here
    gradchecked((lambda t: Cube.apply(t) * 1.0) if second else Cube.apply, (x,), f"Cube on shape {shape}",
                TWICE_HINT if second else CUBE_HINT, second=second, reference=lambda t: t ** 3)


def _cube_vmap(Cube, seed, shape, in_dims) -> None:
    xb = c.randn(*shape, seed=seed, requires_grad=False)
    label = "torch.func.vmap(Cube.apply" + (f", in_dims={in_dims})" if in_dims else ")")
    out = under_func(Cube, "vmap", xb, in_dims=in_dims, what=label)
    expected = torch.stack([xi ** 3 for xi in xb.unbind(in_dims)]) if xb.dim() else xb ** 3
    c.require_close(out, expected, f"{label}(x) for x of shape {tuple(xb.shape)}", "wrong-vmap",
                    "each sample must be cubed.")


def _cube_eager_grad(Cube, x, w):
    """Cube's own gradient of (Cube.apply(x) * w).sum() through ordinary autograd: what a transform must give
    (whether it is 3 x**2 w is cube_values' rule)."""
    leaf = x.detach().clone().requires_grad_(True)
    y = run(Cube.apply, leaf, what="Cube.apply(x)")
    # as_given: a backward that writes into grad_output (a copy here) is the values' rule
    (grad,) = run(c.backward_grads, y, [leaf], w.clone(), what="Cube.backward", as_given=True)
    return grad


def _finite_first_derivative(Cube, x) -> bool:
    try:
        grad = _cube_eager_grad(Cube, x, torch.ones_like(x))
    except c.Mistake:
        return True   # gradgradcheck names what stops it
    return not isinstance(grad, torch.Tensor) or bool(grad.isfinite().all())


SAME_AS_EAGER = ("it differs from the gradient your Function gives through ordinary autograd: under torch.func "
                 "your methods run on wrapped tensors, and must compute the same there.")


def _require_same_as_eager(g, eager, what) -> None:
    """A transform's gradient equals the Function's own ordinary one, NaN where that one is NaN (a derivative NaN
    somewhere is the values' rule: the transform computed the same)."""
    if isinstance(g, torch.Tensor) and isinstance(eager, torch.Tensor) and g.shape == eager.shape:
        both = g.detach().isnan() & eager.detach().isnan()
        g, eager = g.detach().masked_fill(both, 0.0), eager.detach().masked_fill(both, 0.0)
    c.require_close(g, eager, what, "wrong-derivative", SAME_AS_EAGER)


def _cube_grad(Cube, seed, shape) -> None:
    x = c.randn(*shape, seed=seed, requires_grad=False)
    w = c.randn(*shape, seed=seed + 100, requires_grad=False)
    g = under_func(Cube, "grad", x, weight=w, what="torch.func.grad(lambda t: (Cube.apply(t) * w).sum())")
    _require_same_as_eager(g, _cube_eager_grad(Cube, x, w), f"torch.func.grad of (Cube.apply(x) * w).sum() for "
                           f"shape {shape}")


def _cube_per_sample_grad(Cube, seed, shape) -> None:
    xb = c.randn(*shape, seed=seed, requires_grad=False)
    # weight 1: backward gets a grad_output of its own, not .sum()'s broadcast one (writing into that is values')
    g = under_func(Cube, "vmap(grad)", xb, weight=torch.ones((), dtype=xb.dtype), what="vmap(grad(...)) through Cube")
    # each sample's own gradient through ordinary autograd, one call per sample (what per-sample gradients are: a
    # backward that mixes the samples of a batch, grad_output.sum(), is the values' rule)
    alone = [_cube_eager_grad(Cube, xi, torch.ones_like(xi)) for xi in xb.unbind(0)]
    eager = torch.stack(alone) if all(isinstance(t, torch.Tensor) and t.shape == xb.shape[1:] for t in alone) \
        else _cube_eager_grad(Cube, xb, torch.ones_like(xb))
    _require_same_as_eager(g, eager,
                           "per-sample gradients vmap(grad(lambda t: Cube.apply(t).sum()))(x)")


def _cube_jacobian(Cube, seed, shape) -> None:
    """The Jacobian jacrev builds, one row per output entry from backward, built here row by row through Cube."""
    x = c.randn(*shape, seed=seed)
    rows = []
    for e in torch.eye(x.numel(), dtype=x.dtype):   # one backward per output entry, as jacrev's rows
        y = run(Cube.apply, x, what="Cube.apply(x)")
        (row,) = run(c.backward_grads, y, [x], e.reshape(y.shape).clone(), what="Cube.backward", as_given=True)
        rows.append(row if row is not None else torch.zeros_like(x))
    jac = torch.stack(rows).reshape(tuple(x.shape) * 2)
    expected = torch.diag((3 * x.detach() ** 2).reshape(-1)).reshape(tuple(x.shape) * 2)
    c.require_close(jac, expected, f"the Jacobian of Cube.apply(x) for x of shape {shape}, row by row from backward",
                    "wrong-jacobian", "the Jacobian of an elementwise cube is diag(3 * x**2).")


CUBE_CASE_CHECKS = {"values": _cube_values, "gradcheck": _cube_gradcheck, "methods": _cube_methods,
                    "storage": _cube_storage,
                    "gradgradcheck": functools.partial(_cube_gradcheck, second=True), "vmap": _cube_vmap,
                    "grad": _cube_grad, "vmap(grad)": _cube_per_sample_grad, "jacobian": _cube_jacobian}


# The kinds of case that judge the first derivative through Cube.apply: a forward(x) without setup_context (the
# transforms rule's mistake) takes the reference's setup_context there (setup_supplied.py).
_FIRST_ORDER = frozenset({"gradcheck", "jacobian"})


def _cube_cases(Cube, cases) -> None:
    c.require_function(Cube, CUBE)
    supplied = setup_supplied(Cube, CUBE) if any(case[0] in _FIRST_ORDER | {"values"} for case in cases) else Cube
    def one_case(case) -> None:
        kind, *params = case
        if kind == "values":
            c.require_self_contained(Cube, CUBE)
        CUBE_CASE_CHECKS[kind](supplied if kind in _FIRST_ORDER | {"values"} else Cube, *params)
    try:
        c.each(cases, one_case)
    except c.Mistake as refused:
        if refused.code == "no-setup-context":  # torch.func refuses before forward runs: a class not written yet
            run(Cube.apply, c.randn(3, seed=1), what="Cube.apply(x)")  # says so (not-implemented), if it is one
        raise


CUBE_VALUES_CASES = (("values",),) + tuple(("gradcheck", seed, shape) for seed in (0, 1, 2) for shape in CUBE_SHAPES)
# Each test's methods case judges its own rule's part: gradgradcheck a backward autograd can differentiate again,
# vmap a forward in torch operations and a vmap rule, grad the split style and methods that run without storage
# (its values are compared with the Function's own ordinary gradient), jacrev backward's values.
CUBE_GRADGRAD_CASES = (("gradgradcheck", 10, (3,)), ("gradgradcheck", 11, (2, 3)), ("gradgradcheck", 10, (2, 3, 4)),
                       ("methods", 14, (2, 3), "twice"), ("methods", 16, (5,), "twice"))
CUBE_VMAP_CASES = (("vmap", 20, (5, 3), 0), ("vmap", 21, (6,), 0), ("vmap", 22, (3, 4, 2), 1),
                   ("methods", 24, (3,), "forward vmap"))
CUBE_GRAD_CASES = (("grad", 30, (4,)), ("grad", 31, (2, 3)), ("vmap(grad)", 32, (4, 3)), ("methods", 34, (4,), ""),
                   ("storage", (2, 3)))
CUBE_JACREV_CASES = (("jacobian", 41, (2, 3)), ("jacobian", 44, (1,)), ("methods", 43, (2, 3, 4), "backward"))


def cube_values(Cube, cases=(("values",),)) -> None:
    """Values and the gradient of a small example, through ordinary autograd (the table: float64 gradcheck over
    several shapes and seeds)."""
    _cube_cases(Cube, cases)


@c.inputs_judged_elsewhere()  # a backward that writes into grad_output: the values' rule
def cube_gradgradcheck(Cube, cases=(("gradgradcheck", 10, (3,)), ("methods", 15, (2, 3), "twice"))) -> None:
    """Second derivatives, in the judge: gradgradcheck, and backward called directly, then differentiated."""
    _cube_cases(Cube, cases)


@c.inputs_judged_elsewhere()
def cube_vmap(Cube, cases=(("vmap", 23, (4, 3), 0), ("methods", 25, (2, 3), "forward vmap"))) -> None:
    """torch.func.vmap(Cube.apply) (a probe) equals x ** 3 sample by sample; the table adds other shapes and
    in_dims."""
    _cube_cases(Cube, cases)


@c.inputs_judged_elsewhere()
def cube_func_grad(Cube, cases=(("grad", 33, (3,)), ("methods", 35, (3,), ""), ("storage", (3,)))) -> None:
    """torch.func.grad (a probe) of a weighted sum through Cube is Cube's own ordinary gradient, and its methods
    run on tensors without storage (a probe); the table adds shapes and per-sample gradients (vmap of grad)."""
    _cube_cases(Cube, cases)


@c.inputs_judged_elsewhere()
def cube_jacrev(Cube, cases=(("jacobian", 40, (4,)), ("methods", 42, (4,), "backward"))) -> None:
    """What torch.func.jacrev(Cube.apply) needs of Cube's derivative, verified in the judge: the Jacobian diag(3x^2)
    row by row from backward, and Cube's own backward called directly (the right gradient; the split style torch.func
    needs is the transforms' rule, which vmap and grad judge)."""
    _cube_cases(Cube, cases)
