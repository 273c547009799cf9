"""Checks for notebook 09's `SortWithIndices` (see `external`): `SortWithIndices.apply(x)` is (values, indices) of
an ascending sort along the last dim; the values' gradient is scattered back through the indices; the indices are
int64 and carry no gradient.
"""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.common.shared_grad_output import require_grad_output_unshared
from autograder.checks.external.shared import call, gradcheck, grads_of


SORT = "SortWithIndices"
SORT_HINT = ("values[..., j] came from x[..., indices[..., j]], so backward must SCATTER grad_values to those "
             "positions of a zero tensor along the last dimension; gathering applies the inverse permutation.")


def _sort_outputs(SortWithIndices, x, what="SortWithIndices.apply(x)"):
    out = call(SortWithIndices.apply, x, what="SortWithIndices.forward")
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        c.fail("wrong-outputs", f"{what} should return a pair (values, indices), got {type(out).__name__}.")
    values, indices = out
    if not isinstance(values, torch.Tensor) or not isinstance(indices, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return two tensors (values, indices).")
    return values, indices


def _require_values(x, values, what):
    """The values output: x sorted ascending along the last dimension, in x's dtype (the forward's rule)."""
    xd = x.detach()
    c.require_shape(values, xd.shape, f"the values of {what}")
    if values.dtype != xd.dtype:
        c.fail("wrong-dtype", f"the values of {what} have dtype {values.dtype} but x has {xd.dtype}.")
    expected = torch.sort(xd, dim=-1).values
    if not bool(torch.allclose(values.detach(), expected)):
        if xd.shape[-1] > 1 and bool(torch.allclose(values.detach(), expected.flip(-1))):
            c.fail("descending", f"{what} sorted in descending order: sort ascending (smallest first).")
        c.fail("wrong-forward", f"the values of {what} are not x sorted ascending along the last dim.")


def _sorted_dim(x, values) -> int:
    """The dimension along which `values` holds x sorted: the last one, or another where the values' rule was broken
    (sorted along another dim), so that the indices are judged against the values they came with."""
    xd, got = x.detach(), values.detach()
    for dim in [-1] + list(range(xd.dim() - 1)):  # compared in the values' dtype: another dtype is their rule
        if bool(torch.allclose(got, torch.sort(xd, dim=dim).values.to(got.dtype))):
            return dim
    return -1


def _require_indices(x, values, indices, what):
    """The indices output: int64, a permutation, pointing at the values returned (whatever their order, and along the
    dimension they were sorted on: those are the values' rule)."""
    xd = x.detach()
    c.require_shape(indices, xd.shape, f"the indices of {what}")
    if indices.dtype != torch.int64:
        c.fail("wrong-index-dtype", f"the indices of {what} have dtype {indices.dtype}: they must be int64 "
                                    "(torch.from_numpy(np.argsort(...)) gives int64; do not convert them to a float).")
    if values.shape != xd.shape:
        return  # values of another shape: the values' rule
    dim = _sorted_dim(xd, values)
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= xd.shape[dim]):
        c.fail("wrong-indices", f"the indices of {what} are out of range.")
    if not bool(torch.equal(xd.gather(dim, indices).to(values.dtype), values.detach())):
        c.fail("wrong-indices", f"the indices of {what} do not point at the values: x.gather(-1, indices) must "
                                "equal values.")
    positions = torch.arange(xd.shape[dim]).reshape([-1] + [1] * (xd.dim() - 1 - dim % xd.dim()))
    if not bool(torch.equal(indices.sort(dim=dim).values, positions.expand_as(indices).contiguous())):
        c.fail("wrong-indices", f"the indices of {what} are not a permutation of 0..n-1 along the last dim.")


def sort_values(SortWithIndices) -> None:
    """Visible: values, indices and the gradient on a 3-cycle (gather and scatter differ there)."""
    c.require_function(SortWithIndices, SORT)
    c.require_self_contained(SortWithIndices, SORT)
    x = torch.tensor([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]], dtype=torch.float64, requires_grad=True)
    values, indices = _sort_outputs(SortWithIndices, x)
    _require_values(x, values, "SortWithIndices.apply(x)")
    c.require_own_node(values, SortWithIndices, SORT)
    # The values keep x's dtype for float32 too (a float64 x alone cannot tell a fixed float64 output).
    x32 = x.detach().float()
    _require_values(x32, _sort_outputs(SortWithIndices, x32)[0], "SortWithIndices.apply(x) for a float32 x")
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into
    require_grad_output_kept(lambda: [(_sort_outputs(SortWithIndices, t)[0], [t]) for t in (
        c.randn(5, seed=60), c.randn(2, 4, seed=61))], f"the gradient of {SORT}.apply(x)[0].sum()", SORT)
    require_grad_output_unshared(SortWithIndices, (c.randn(2, 4, seed=62),), SORT, output=0)
    # Weights float32 cannot hold: a scatter copies each one exactly, in grad_values' dtype.
    weights = torch.tensor([[1.1, 10.3, 100.7], [1.3, 10.7, 100.1]], dtype=torch.float64)
    (grad,) = grads_of(values, [x], weights.clone(), what="SortWithIndices.backward")
    if grad is None:
        c.fail("no-gradient", "SortWithIndices gave x no gradient through the values.")
    # No ties: the permutation is the one torch.sort finds, whatever the indices returned (the indices' rule).
    expected = torch.zeros_like(weights).scatter(-1, torch.sort(x.detach(), dim=-1).indices, weights)
    if grad.shape == expected.shape and not torch.equal(grad, expected) \
            and torch.equal(grad, expected.float().double()):
        c.fail("wrong-dtype", "the gradient of x through the sorted values lost float64 precision (it went through "
                              "float32): build it in grad_values' dtype (a tensor of zeros made like grad_values).")
    c.require_close(grad, expected, "the gradient of x through the sorted values", "wrong-derivative", SORT_HINT,
                    rtol=1e-12, atol=1e-12)
    _require_kept_guarded(SortWithIndices)


def _require_kept_guarded(SortWithIndices) -> None:
    """x (negated: the order changes), then the indices (zeroed), changed in place after forward: backward raises
    autograd's in-place error (what it needs kept with ctx.save_for_backward) or gives the gradient of the call left
    alone (common/kept_guarded.py). The statement's hint says to save the indices, as notebook 09's NumpyMax saves
    its index; notebook 04 says how: a tensor the caller holds (an input, an output handed back) kept as a ctx
    attribute escapes the version counter."""
    x = torch.tensor([[3.0, 1.0, 2.0, -0.5], [0.5, -1.0, 4.0, 2.5]], dtype=torch.float64)
    weights = torch.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], dtype=torch.float64)

    def weighted(t):  # grad_values of distinct entries: a gradient of ones reads the same through any permutation
        values, indices = SortWithIndices.apply(t)
        return values * weights, indices

    with c.explained(f"{SORT}.apply(x)", (c.NOT_IMPLEMENTED,)):
        kept_guarded.require_kept_guarded(weighted, [x], what=f"{SORT}.backward", kept="x",
                                          change=lambda inputs, outputs: inputs[0].neg_())
        kept_guarded.require_kept_guarded(weighted, [x], what=f"{SORT}.backward", kept="the indices",
                                          change=kept_guarded.change_output(1))


# (seed, shape)
SORT_GRADCHECK_CASES = ((0, (5,)),)
SORT_GRADCHECK_TABLE = tuple((seed, shape) for seed in (0, 1, 2) for shape in ((5,), (3, 4), (2, 3, 5)))
SORT_INDEX_CASES = ((0, (6,)),)
SORT_INDEX_TABLE = tuple((seed, shape) for seed in (0, 1) for shape in ((6,), (3, 5), (2, 2, 4)))


def sort_gradcheck(SortWithIndices, cases=SORT_GRADCHECK_CASES) -> None:
    """float64 finite differences of the values output, one input per (seed, shape) of `cases`."""
    c.require_function(SortWithIndices, SORT)
    def one_case(seed, shape) -> None:
        x = c.randn(*shape, seed=seed)
        gradcheck(lambda t: SortWithIndices.apply(t)[0], (x,), f"the values of SortWithIndices on shape {shape}",
                    hint=SORT_HINT, reference=lambda t: torch.sort(t, dim=-1).values)
    c.each(cases, lambda case: one_case(*case))


def _backward_scatters(SortWithIndices) -> bool:
    """Whether the gradient through the values is right on an input without ties (where the permutation is unique)."""
    x = c.randn(2, 5, seed=77)
    try:
        values, _ = _sort_outputs(SortWithIndices, x)
        g = c.randn(2, 5, seed=78, requires_grad=False)
        (grad,) = grads_of(values, [x], g, what="SortWithIndices.backward")
    except Exception:  # a backward that crashes is the values' and gradcheck's rule, not the indices'
        return False
    expected = torch.zeros_like(g).scatter(-1, torch.sort(x.detach(), dim=-1).indices, g)
    return isinstance(grad, torch.Tensor) and grad.shape == g.shape and bool(torch.allclose(grad, expected))


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
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
        _require_indices(x, values, indices, what)
        if indices.requires_grad:
            c.fail("index-requires-grad", f"the indices of {what} require grad: an index carries no gradient.")
    if not _backward_scatters(SortWithIndices):
        return  # a wrong gradient is the values' and gradcheck's rule; what follows needs a right one
    # With ties the gradient must follow the indices actually returned.
    values, indices = _sort_outputs(SortWithIndices, ties)
    g = torch.arange(1.0, 11.0, dtype=torch.float64).reshape(2, 5)
    (grad,) = grads_of(values, [ties], g, what="SortWithIndices.backward")
    expected = torch.zeros_like(g).scatter(-1, indices, g)
    c.require_close(grad, expected, "the gradient of x with ties, following the returned indices",
                    "wrong-derivative", SORT_HINT)
    # The backward also works when the engine sends a gradient for the indices (materialized zeros).
    ctx = c.FakeCtx((True,))
    x = c.randn(2, 4, seed=cases[0][0] + 9)
    with torch.no_grad():
        values, indices = call(SortWithIndices.forward, ctx, x, what="SortWithIndices.forward")
        gv = c.randn(2, 4, seed=cases[0][0] + 10, requires_grad=False)
        grads = call(SortWithIndices.backward, ctx, gv, torch.zeros_like(indices), what="SortWithIndices.backward")
    grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
    while len(grads) > 1 and grads[-1] is None:  # the engine tolerates trailing Nones
        grads = grads[:-1]
    if len(grads) != 1:
        c.fail("wrong-arity", f"SortWithIndices.backward returned {len(grads)} values but forward takes one input (x): "
                              "return only the gradient of x (backward gets one gradient per OUTPUT but returns "
                              "one per INPUT; the indices get none).")
    returned = grads[0].to(gv.dtype) if isinstance(grads[0], torch.Tensor) else grads[0]  # its dtype: the values test's
    c.require_close(returned, torch.zeros_like(gv).scatter(-1, indices, gv), "backward called with a crafted ctx",
                    "wrong-derivative", SORT_HINT)
