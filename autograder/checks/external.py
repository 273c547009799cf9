"""Checks for notebook 09 (wrapping external kernels, here NumPy).

- `NumpyCumsum.apply(x, dim)`: cumulative sum along `dim`, forward and backward computed by NumPy, backward
  marked @once_differentiable; output of x's dtype and device; None for dim.
- `SortWithIndices.apply(x)`: (values, indices) of an ascending sort along the last dim; the values'
  gradient is scattered back through the indices; indices are int64 and carry no gradient.
- `ClampWithMask.apply(x, lo, hi)`: (x.clamp(lo, hi), mask), mask a float tensor of x's dtype, 1 where
  lo <= x <= hi, marked non-differentiable; the gradient reaches x only where the mask is 1.
"""

from __future__ import annotations

import re

import torch

from autograder.checks import common as c
from autograder.checks.explain import Rule, explained

# The breadth of each check is its `cases=`: the default is what the visible test runs, the tables below what
# the hidden tests run. A case is a seed, or a tuple that starts with one, as each check says.
DIMS_CASES, DIMS_TABLE = (0,), (0, 1)
ONCE_CASES, ONCE_TABLE = (0,), (11, 21)


ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"
NUMPY_ERROR = "Can't call numpy() on Tensor that requires grad"


# Plain words for the NumPy pitfalls (negative strides) and a wrong argument count.
EXTERNAL_RULES = (
    Rule("negative-strides", r"negative.*stride|stride.*negative",
         "{what}: torch.from_numpy refused an array with negative strides (np.flip returns a reversed view): make a "
         "contiguous copy first, e.g. np.flip(a, axis).copy() or np.ascontiguousarray.", types=(ValueError,)),
    Rule("wrong-signature", "positional argument",
         "{what} raised TypeError: {text}. forward takes (ctx, *inputs); backward takes ctx plus one gradient per "
         "forward output.", types=(TypeError,)),
)


def _call(fn, *args, what):
    """Like common.call, with plain words for the NumPy pitfalls."""
    with explained(what, EXTERNAL_RULES):
        return c.call(fn, *args, what=what)


def _gradcheck(fn, inputs, what, hint):
    with explained(what, EXTERNAL_RULES):
        c.gradcheck(fn, inputs, what, hint=hint)


def _grads(output, inputs, grad_output=None, what="backward"):
    with explained(what, EXTERNAL_RULES):
        return c.backward_grads(output, inputs, grad_output, what=what)


# ------------------------------------------------------------------------------------------ NumpyCumsum

CUMSUM = "NumpyCumsum"
CUMSUM_HINT = ("the gradient of a cumulative sum is the REVERSED cumulative sum of grad_output along the same "
               "dim: flip, cumsum, flip back.")


def _cumsum_grad_ref(grad, dim):
    return torch.flip(torch.cumsum(torch.flip(grad, (dim,)), dim), (dim,))


def _require_output(y, x, what):
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a torch tensor, got {type(y).__name__}: convert the NumPy "
                               "result back with torch.from_numpy(...).")
    if y.dtype != x.dtype:
        c.fail("wrong-dtype", f"for a {x.dtype} input {what} returned {y.dtype}: the output must have x's dtype "
                              "(NumPy keeps float32 as float32 unless you convert; if you must, convert back with "
                              ".to(x.dtype)).")
    if y.device != x.device:
        c.fail("wrong-device", f"{what} returned a tensor on {y.device} but x is on {x.device}: move it back with "
                               ".to(x.device).")


def cumsum_values(NumpyCumsum) -> None:
    """Visible: values along dim 0 and 1, and the gradient along dim 1."""
    c.require_function(NumpyCumsum, CUMSUM)
    c.require_self_contained(NumpyCumsum, CUMSUM)
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64, requires_grad=True)
    for dim in (0, 1):
        y = _call(NumpyCumsum.apply, x, dim, what="NumpyCumsum.forward")
        _require_output(y, x, f"NumpyCumsum.apply(x, {dim})")
        c.require_close(y, torch.cumsum(x.detach(), dim), f"NumpyCumsum.apply(x, {dim})", "wrong-forward",
                        f"forward should return np.cumsum along axis={dim} (use the dim argument).")
    c.require_own_node(y, NumpyCumsum, CUMSUM)
    weights = torch.tensor([[1.0, 10.0, 100.0], [-1.0, 2.0, 0.5]], dtype=torch.float64)
    (grad,) = _grads(y, [x], weights, what="NumpyCumsum.backward")
    if grad is None:
        c.fail("no-gradient", "NumpyCumsum gave x no gradient: backward must return the gradient of x first.")
    c.require_close(grad, _cumsum_grad_ref(weights, 1), "the gradient of NumpyCumsum.apply(x, 1)",
                    "wrong-derivative", CUMSUM_HINT)


def cumsum_dims_and_dtypes(NumpyCumsum, cases=DIMS_CASES) -> None:
    """Several shapes and dims (negative ones too) for each seed of `cases`, float32 stays float32, and a
    non-contiguous input."""
    c.require_function(NumpyCumsum, CUMSUM)
    dims = [((5,), 0), ((5,), -1), ((3, 4), 0), ((3, 4), -1), ((3, 4), -2), ((2, 3, 4), 1), ((2, 3, 4), -1),
            ((2, 3, 4), 0)]
    for seed in cases:
        for shape, dim in dims:
            for dtype in (torch.float64, torch.float32):
                x = c.randn(*shape, seed=seed, dtype=dtype)
                what = f"NumpyCumsum.apply(x, {dim}) on a {dtype} input of shape {shape}"
                y = _call(NumpyCumsum.apply, x, dim, what=what)
                _require_output(y, x, what)
                c.require_close(y, torch.cumsum(x.detach(), dim), what, "wrong-forward",
                                "forward should return np.cumsum(..., axis=dim): the dim argument decides the axis "
                                "(negative dims count from the end).", rtol=1e-5, atol=1e-5)
                g = c.randn(*shape, seed=seed + 50, dtype=dtype, requires_grad=False)
                (grad,) = _grads(y, [x], g, what="NumpyCumsum.backward")
                if grad is None:
                    c.fail("no-gradient", "NumpyCumsum gave x no gradient.")
                _require_output(grad, x, f"the gradient of {what}")
                c.require_close(grad, _cumsum_grad_ref(g, dim), f"the gradient of {what}", "wrong-derivative",
                                CUMSUM_HINT, rtol=1e-5, atol=1e-5)
    # A transposed (non-contiguous) input.
    base = c.randn(4, 3, seed=cases[0] + 7, requires_grad=False)
    x = base.t().requires_grad_(True)
    y = _call(NumpyCumsum.apply, x, 1, what="NumpyCumsum.forward on a transposed input")
    c.require_close(y, torch.cumsum(x.detach(), 1), "NumpyCumsum on a transposed (non-contiguous) input",
                    "wrong-forward")


# (seed, shape, dim)
CUMSUM_CASES = ((0, (3, 4), 1),)
CUMSUM_TABLE = tuple((seed, shape, dim) for seed in (0, 1, 2)
                     for shape, dim in (((4,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 2), -1)))


def cumsum_gradcheck(NumpyCumsum, cases=CUMSUM_CASES) -> None:
    """float64 finite differences over (seed, shape, dim) cases, and None for dim (crafted ctx)."""
    c.require_function(NumpyCumsum, CUMSUM)
    first = cases[0][0]
    probe = c.randn(3, 4, seed=first)
    _require_output(_call(NumpyCumsum.apply, probe, 1, what="NumpyCumsum.forward"), probe, "NumpyCumsum.apply(x, 1)")
    for seed, shape, dim in cases:
        x = c.randn(*shape, seed=seed)
        _gradcheck(lambda t, d=dim: NumpyCumsum.apply(t, d), (x,), f"NumpyCumsum on shape {shape}, dim {dim}",
                    hint=CUMSUM_HINT)
    x = c.randn(3, 4, seed=first + 3)
    ctx = c.FakeCtx((True, False))
    with torch.no_grad():
        _call(NumpyCumsum.forward, ctx, x, 1, what="NumpyCumsum.forward")
        grads = _call(NumpyCumsum.backward, ctx, torch.ones(3, 4, dtype=torch.float64), what="NumpyCumsum.backward")
    if not isinstance(grads, (tuple, list)) or len(grads) != 2:
        c.fail("wrong-arity", "NumpyCumsum.backward must return two values, one per forward input: the gradient "
                              "of x, then None for dim.")
    if grads[1] is not None:
        c.fail("missing-none", "NumpyCumsum.backward returned a gradient for dim, an int: return None in that "
                               "position.")


def cumsum_once_differentiable(NumpyCumsum, cases=ONCE_CASES) -> None:
    """Asking for a second derivative must raise the @once_differentiable error; one input per seed of `cases`."""
    c.require_function(NumpyCumsum, CUMSUM)
    for seed in cases:
        _cumsum_once_differentiable(NumpyCumsum, seed)


FIRST_ORDER_RULES = (c.NOT_IMPLEMENTED,) + EXTERNAL_RULES + c.ENGINE_RULES + (
    Rule("not-once-differentiable", re.escape(NUMPY_ERROR),
         "with create_graph=True your backward received a grad_output that requires grad, and NumPy refused it "
         "(\"" + NUMPY_ERROR + "\"). Decorate backward with @torch.autograd.function.once_differentiable (under "
         "@staticmethod): it runs backward with grad mode off, where .numpy() works, and makes a second "
         "differentiation fail with a clear error.", types=(RuntimeError,)),
)
SECOND_ORDER_RULES = (
    Rule("not-once-differentiable", None,
         "differentiating NumpyCumsum's gradient a second time raised \"{line}\" instead of the clear "
         "once_differentiable error: decorate backward with @torch.autograd.function.once_differentiable (under "
         "@staticmethod).", types=(RuntimeError,)),
)


def _cumsum_once_differentiable(NumpyCumsum, seed: int) -> None:
    x = c.randn(3, 4, seed=seed)
    y = _call(NumpyCumsum.apply, x, 1, what="NumpyCumsum.forward")
    _require_output(y, x, "NumpyCumsum.apply(x, 1)")
    what = "NumpyCumsum.backward under create_graph=True"
    with explained(what, FIRST_ORDER_RULES):
        (g,) = torch.autograd.grad((y * y).sum(), [x], create_graph=True)
    with explained(what, SECOND_ORDER_RULES):
        try:
            g.sum().backward()
        except RuntimeError as error:
            if ONCE in str(error):
                return
            raise
    c.fail("not-once-differentiable",
           "differentiating NumpyCumsum's gradient a second time silently worked: a NumPy backward is invisible to "
           "autograd, so that second derivative cannot be right. Decorate backward with "
           "@torch.autograd.function.once_differentiable (under @staticmethod).")


# -------------------------------------------------------------------------------------- SortWithIndices

SORT = "SortWithIndices"
SORT_HINT = ("values[..., j] came from x[..., indices[..., j]], so backward must SCATTER grad_values to those "
             "positions (torch.zeros_like(grad).scatter(-1, indices, grad)); gathering applies the inverse "
             "permutation.")


def _sort_outputs(SortWithIndices, x, what="SortWithIndices.apply(x)"):
    out = _call(SortWithIndices.apply, x, what="SortWithIndices.forward")
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        c.fail("wrong-outputs", f"{what} should return a pair (values, indices), got {type(out).__name__}.")
    values, indices = out
    if not isinstance(values, torch.Tensor) or not isinstance(indices, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return two tensors (values, indices).")
    return values, indices


def _require_sorted(x, values, indices, what):
    xd = x.detach()
    c.require_shape(values, xd.shape, f"the values of {what}")
    c.require_shape(indices, xd.shape, f"the indices of {what}")
    if indices.dtype != torch.int64:
        c.fail("wrong-index-dtype", f"the indices of {what} have dtype {indices.dtype}: they must be int64 "
                                    "(torch.from_numpy(np.argsort(...)) gives int64; do not convert them to a float).")
    if values.dtype != xd.dtype:
        c.fail("wrong-dtype", f"the values of {what} have dtype {values.dtype} but x has {xd.dtype}.")
    expected = torch.sort(xd, dim=-1).values
    if not bool(torch.allclose(values.detach(), expected)):
        if xd.shape[-1] > 1 and bool(torch.allclose(values.detach(), expected.flip(-1))):
            c.fail("descending", f"{what} sorted in descending order: sort ascending (smallest first).")
        c.fail("wrong-forward", f"the values of {what} are not x sorted ascending along the last dim.")
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= xd.shape[-1]):
        c.fail("wrong-indices", f"the indices of {what} are out of range.")
    if not bool(torch.equal(xd.gather(-1, indices), values.detach())):
        c.fail("wrong-indices", f"the indices of {what} do not point at the values: x.gather(-1, indices) must "
                                "equal values.")
    if not bool(torch.equal(indices.sort(dim=-1).values,
                            torch.arange(xd.shape[-1]).expand_as(indices).contiguous())):
        c.fail("wrong-indices", f"the indices of {what} are not a permutation of 0..n-1 along the last dim.")


def sort_values(SortWithIndices) -> None:
    """Visible: values, indices and the gradient on a 3-cycle (gather and scatter differ there)."""
    c.require_function(SortWithIndices, SORT)
    c.require_self_contained(SortWithIndices, SORT)
    x = torch.tensor([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]], dtype=torch.float64, requires_grad=True)
    values, indices = _sort_outputs(SortWithIndices, x)
    _require_sorted(x, values, indices, "SortWithIndices.apply(x)")
    c.require_own_node(values, SortWithIndices, SORT)
    weights = torch.tensor([[1.0, 10.0, 100.0], [1.0, 10.0, 100.0]], dtype=torch.float64)
    (grad,) = _grads(values, [x], weights, what="SortWithIndices.backward")
    if grad is None:
        c.fail("no-gradient", "SortWithIndices gave x no gradient through the values.")
    expected = torch.zeros_like(weights).scatter(-1, indices, weights)
    c.require_close(grad, expected, "the gradient of x through the sorted values", "wrong-derivative", SORT_HINT)


# (seed, shape)
SORT_GRADCHECK_CASES = ((0, (5,)),)
SORT_GRADCHECK_TABLE = tuple((seed, shape) for seed in (0, 1, 2) for shape in ((5,), (3, 4), (2, 3, 5)))
SORT_INDEX_CASES = ((0, (6,)),)
SORT_INDEX_TABLE = tuple((seed, shape) for seed in (0, 1) for shape in ((6,), (3, 5), (2, 2, 4)))


def sort_gradcheck(SortWithIndices, cases=SORT_GRADCHECK_CASES) -> None:
    """float64 finite differences of the values output, one input per (seed, shape) of `cases`."""
    c.require_function(SortWithIndices, SORT)
    for seed, shape in cases:
        x = c.randn(*shape, seed=seed)
        _gradcheck(lambda t: SortWithIndices.apply(t)[0], (x,), f"the values of SortWithIndices on shape {shape}",
                    hint=SORT_HINT)


def sort_indices(SortWithIndices, cases=SORT_INDEX_CASES) -> None:
    """Indices are int64, need no grad, are right on random inputs ((seed, shape) of `cases`, float64 and
    float32) and ties."""
    c.require_function(SortWithIndices, SORT)
    inputs = [c.randn(*shape, seed=seed, dtype=dtype) for seed, shape in cases
              for dtype in (torch.float64, torch.float32)]
    ties = torch.tensor([[2.0, 1.0, 2.0, 1.0, 0.0], [3.0, 3.0, 3.0, -1.0, 3.0]], dtype=torch.float64,
                        requires_grad=True)
    for x in inputs + [ties]:
        what = f"SortWithIndices.apply(x) for a {x.dtype} x of shape {tuple(x.shape)}"
        if x is ties:
            what = "SortWithIndices.apply(x) for an x with ties (equal values)"
        values, indices = _sort_outputs(SortWithIndices, x, what)
        _require_sorted(x, values, indices, what)
        if indices.requires_grad:
            c.fail("index-requires-grad", f"the indices of {what} require grad: an index carries no gradient.")
    # With ties the gradient must follow the indices actually returned.
    values, indices = _sort_outputs(SortWithIndices, ties)
    g = torch.arange(1.0, 11.0, dtype=torch.float64).reshape(2, 5)
    (grad,) = _grads(values, [ties], g, what="SortWithIndices.backward")
    expected = torch.zeros_like(g).scatter(-1, indices, g)
    c.require_close(grad, expected, "the gradient of x with ties, following the returned indices",
                    "wrong-derivative", SORT_HINT)
    # The backward also works when the engine sends a gradient for the indices (materialized zeros).
    ctx = c.FakeCtx((True,))
    x = c.randn(2, 4, seed=cases[0][0] + 9)
    with torch.no_grad():
        values, indices = _call(SortWithIndices.forward, ctx, x, what="SortWithIndices.forward")
        gv = c.randn(2, 4, seed=cases[0][0] + 10, requires_grad=False)
        grads = _call(SortWithIndices.backward, ctx, gv, torch.zeros_like(indices), what="SortWithIndices.backward")
    grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
    while len(grads) > 1 and grads[-1] is None:  # the engine tolerates trailing Nones
        grads = grads[:-1]
    if len(grads) != 1:
        c.fail("wrong-arity", f"SortWithIndices.backward returned {len(grads)} values but forward takes one input (x): "
                              "return only the gradient of x (backward gets one gradient per OUTPUT but returns "
                              "one per INPUT; the indices get none).")
    c.require_close(grads[0], torch.zeros_like(gv).scatter(-1, indices, gv), "backward called with a crafted ctx",
                    "wrong-derivative", SORT_HINT)


# ---------------------------------------------------------------------------------------- ClampWithMask

CLAMP = "ClampWithMask"
CLAMP_HINT = "the gradient reaches x only where lo <= x <= hi: return grad_output * mask (and None for lo, hi)."


def _clamp_outputs(ClampWithMask, x, lo, hi):
    out = _call(ClampWithMask.apply, x, lo, hi, what="ClampWithMask.forward")
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        c.fail("wrong-outputs", f"ClampWithMask.apply(x, lo, hi) should return a pair (clamped, mask), got "
                                f"{type(out).__name__}.")
    y, mask = out
    if not isinstance(y, torch.Tensor) or not isinstance(mask, torch.Tensor):
        c.fail("not-a-tensor", "ClampWithMask.apply(x, lo, hi) should return two tensors (clamped, mask).")
    return y, mask


def _expected_mask(x, lo, hi):
    xd = x.detach()
    return ((xd >= lo) & (xd <= hi)).to(xd.dtype)


def _require_mask(mask, x, lo, hi, what):
    if mask.dtype == torch.bool:
        c.fail("bool-mask", f"the mask of {what} is a bool tensor: it must be a float tensor of x's dtype "
                            "(1.0 inside, 0.0 outside), e.g. ((x >= lo) & (x <= hi)).to(x.dtype).")
    if mask.dtype != x.dtype:
        c.fail("wrong-dtype", f"the mask of {what} has dtype {mask.dtype}: it must have x's dtype ({x.dtype}).")
    c.require_shape(mask, x.shape, f"the mask of {what}")
    expected = _expected_mask(x, lo, hi)
    if not bool(torch.equal(mask.detach(), expected)):
        xd = x.detach()
        at_bounds = (xd == lo) | (xd == hi)
        if bool((mask.detach() != expected)[~at_bounds].sum() == 0):
            c.fail("boundary-excluded", f"the mask of {what} is 0 where x equals lo or hi exactly: the boundary "
                                        "points belong inside (use lo <= x <= hi, not <).")
        c.fail("wrong-mask", f"the mask of {what} is wrong: 1.0 where lo <= x <= hi, 0.0 elsewhere.")


def clamp_values(ClampWithMask) -> None:
    """Visible: clamped values, mask and gradient on a small example."""
    c.require_function(ClampWithMask, CLAMP)
    c.require_self_contained(ClampWithMask, CLAMP)
    x = torch.tensor([-2.0, -0.7, 0.0, 0.4, 1.5], dtype=torch.float64, requires_grad=True)
    lo, hi = -1.0, 1.0
    y, mask = _clamp_outputs(ClampWithMask, x, lo, hi)
    c.require_close(y, x.detach().clamp(lo, hi), "the first output of ClampWithMask.apply(x, -1.0, 1.0)",
                    "wrong-forward", "it should be x.clamp(lo, hi).")
    _require_mask(mask, x, lo, hi, "ClampWithMask.apply(x, -1.0, 1.0)")
    c.require_own_node(y, ClampWithMask, CLAMP)
    (grad,) = _grads(y, [x], what="ClampWithMask.backward")
    if grad is None:
        c.fail("no-gradient", "ClampWithMask gave x no gradient.")
    c.require_close(grad, _expected_mask(x, lo, hi), "the gradient of ClampWithMask.apply(x, -1.0, 1.0)[0].sum()",
                    "wrong-derivative", CLAMP_HINT)


MASK_CASES = ("marked",)
MASK_TABLE = ("marked", torch.float64, torch.float32)


def clamp_mask(ClampWithMask, cases=MASK_CASES) -> None:
    """The mask needs no grad (mark_non_differentiable). "marked": on a small example; a dtype: and it has x's
    dtype, and includes lo and hi exactly."""
    c.require_function(ClampWithMask, CLAMP)
    for case in cases:
        if case == "marked":
            x = torch.tensor([-2.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
            _, mask = _clamp_outputs(ClampWithMask, x, -1.0, 1.0)
            _require_not_differentiable(mask, "ClampWithMask.apply(x, -1.0, 1.0)")
        else:
            _clamp_mask_in(ClampWithMask, case)


def _require_not_differentiable(mask, what) -> None:
    if mask.requires_grad:
        c.fail("mask-requires-grad",
               f"the mask of {what} requires grad, so autograd treats it as differentiable (a loss that uses it "
               "would send a gradient into your backward). Call ctx.mark_non_differentiable(mask) in forward.")


def _clamp_mask_in(ClampWithMask, dtype) -> None:
    x = torch.tensor([-1.5, -0.5, -0.25, 0.0, 0.5, 0.75, 2.0], dtype=dtype, requires_grad=True)
    lo, hi = -0.5, 0.75
    what = f"ClampWithMask.apply(x, {lo}, {hi}) for a {dtype} x"
    y, mask = _clamp_outputs(ClampWithMask, x, lo, hi)
    if y.dtype != dtype:
        c.fail("wrong-dtype", f"the clamped output of {what} has dtype {y.dtype}.")
    _require_mask(mask, x, lo, hi, what)
    _require_not_differentiable(mask, what)
    (grad,) = _grads(y, [x], what="ClampWithMask.backward")
    if grad is None:
        c.fail("no-gradient", "ClampWithMask gave x no gradient.")
    c.require_close(grad, _expected_mask(x, lo, hi), f"the gradient of {what}, boundary points included",
                    "wrong-derivative", CLAMP_HINT)


# (seed, shape, lo, hi)
CLAMP_CASES = ((0, (6,), -0.5, 0.5),)
CLAMP_TABLE = tuple((seed, shape, lo, hi) for seed in (0, 1, 2)
                    for shape, lo, hi in (((6,), -0.5, 0.5), ((3, 4), -1.0, 0.2), ((2, 3, 4), 0.1, 1.2)))


def clamp_gradcheck(ClampWithMask, cases=CLAMP_CASES) -> None:
    """float64 finite differences away from lo and hi for each (seed, shape, lo, hi) of `cases`, and None for
    lo, hi (crafted ctx)."""
    c.require_function(ClampWithMask, CLAMP)
    for seed, shape, lo, hi in cases:
        x = c.randn(*shape, seed=seed, away_from=(lo, hi), scale=1.5)
        _gradcheck(lambda t, a=lo, b=hi: ClampWithMask.apply(t, a, b)[0], (x,),
                    f"ClampWithMask on shape {shape} with lo={lo}, hi={hi}", hint=CLAMP_HINT)
    x = c.randn(2, 3, seed=cases[0][0] + 4)
    ctx = c.FakeCtx((True, False, False))
    with torch.no_grad():
        y, mask = _call(ClampWithMask.forward, ctx, x, -0.5, 0.5, what="ClampWithMask.forward")
        grads = _call(ClampWithMask.backward, ctx, torch.ones_like(y), torch.zeros_like(mask),
                      what="ClampWithMask.backward")
    if not isinstance(grads, (tuple, list)) or len(grads) != 3:
        c.fail("wrong-arity", "ClampWithMask.backward must return three values, one per forward input: the gradient "
                              "of x, then None for lo and None for hi.")
    if grads[1] is not None or grads[2] is not None:
        c.fail("missing-none", "ClampWithMask.backward returned a gradient for lo or hi, which are floats: return "
                               "None in those positions.")
