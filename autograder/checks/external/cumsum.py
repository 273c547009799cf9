"""Checks for notebook 09's `NumpyCumsum` (see `external`): `NumpyCumsum.apply(x, dim)` is the cumulative sum
along `dim`, forward and backward computed by NumPy, backward marked @once_differentiable; the output has x's
dtype and device; None for dim.
"""

from __future__ import annotations

import re

import torch

from autograder.checks import common as c
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.explain import Rule, explained
from autograder.checks.external.shared import EXTERNAL_RULES, NUMPY_ERROR, ONCE, call, gradcheck, grads_of


# The breadth of each check is its `cases=`: the default is what the visible test runs, the tables below what
# the hidden tests run. A case is a seed, or a tuple that starts with one, as each check says.
DIMS_CASES, DIMS_TABLE = (0,), (0, 1)
ONCE_CASES, ONCE_TABLE = (0,), (11, 21)

CUMSUM = "NumpyCumsum"
CUMSUM_HINT = ("the gradient of a cumulative sum is the REVERSED cumulative sum of grad_output along the same "
               "dim: flip, cumsum, flip back.")


def _torch_cumsum_grad(grad, dim):
    """The gradient of torch's own cumsum along dim for grad_output `grad`, by autograd."""
    leaf = torch.zeros_like(grad, requires_grad=True)
    with torch.enable_grad():
        (out,) = torch.autograd.grad(torch.cumsum(leaf, dim), leaf, grad.detach())
    return out


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
        y = call(NumpyCumsum.apply, x, dim, what="NumpyCumsum.forward")
        _require_output(y, x, f"NumpyCumsum.apply(x, {dim})")
        c.require_close(y, torch.cumsum(x.detach(), dim), f"NumpyCumsum.apply(x, {dim})", "wrong-forward",
                        f"forward should return np.cumsum along axis={dim} (use the dim argument).")
    c.require_own_node(y, NumpyCumsum, CUMSUM)
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into
    require_grad_output_kept(lambda: [(NumpyCumsum.apply(t, 1), [t]) for t in (c.randn(2, 3, seed=60),
                             c.randn(2, 3, seed=61))], "the gradient of NumpyCumsum.apply(x, 1).sum()", CUMSUM)
    weights = torch.tensor([[1.0, 10.0, 100.0], [-1.0, 2.0, 0.5]], dtype=torch.float64)
    (grad,) = grads_of(y, [x], weights, what="NumpyCumsum.backward")
    if grad is None:
        c.fail("no-gradient", "NumpyCumsum gave x no gradient: backward must return the gradient of x first.")
    c.require_close(grad, _torch_cumsum_grad(weights, 1), "the gradient of NumpyCumsum.apply(x, 1)",
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
                y = call(NumpyCumsum.apply, x, dim, what=what)
                _require_output(y, x, what)
                c.require_close(y, torch.cumsum(x.detach(), dim), what, "wrong-forward",
                                "forward should return np.cumsum(..., axis=dim): the dim argument decides the axis "
                                "(negative dims count from the end).", rtol=1e-5, atol=1e-5)
                g = c.randn(*shape, seed=seed + 50, dtype=dtype, requires_grad=False)
                (grad,) = grads_of(y, [x], g, what="NumpyCumsum.backward")
                if grad is None:
                    c.fail("no-gradient", "NumpyCumsum gave x no gradient.")
                _require_output(grad, x, f"the gradient of {what}")
                c.require_close(grad, _torch_cumsum_grad(g, dim), f"the gradient of {what}", "wrong-derivative",
                                CUMSUM_HINT, rtol=1e-5, atol=1e-5)
    # A transposed (non-contiguous) input.
    base = c.randn(4, 3, seed=cases[0] + 7, requires_grad=False)
    x = base.t().requires_grad_(True)
    y = call(NumpyCumsum.apply, x, 1, what="NumpyCumsum.forward on a transposed input")
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
    _require_output(call(NumpyCumsum.apply, probe, 1, what="NumpyCumsum.forward"), probe, "NumpyCumsum.apply(x, 1)")
    def one_case(seed, shape, dim) -> None:
        x = c.randn(*shape, seed=seed)
        gradcheck(lambda t, d=dim: NumpyCumsum.apply(t, d), (x,), f"NumpyCumsum on shape {shape}, dim {dim}",
                    hint=CUMSUM_HINT, reference=lambda t, d=dim: torch.cumsum(t, d))
    c.each(cases, lambda case: one_case(*case))
    x = c.randn(3, 4, seed=first + 3)
    ctx = c.FakeCtx((True, False))
    with torch.no_grad():
        call(NumpyCumsum.forward, ctx, x, 1, what="NumpyCumsum.forward")
        # as a lambda: a backward that writes into its grad_output (a fresh one here) is the values test's rule
        grads = call(lambda: NumpyCumsum.backward(ctx, torch.ones(3, 4, dtype=torch.float64)),
                     what="NumpyCumsum.backward")
    if not isinstance(grads, (tuple, list)) or len(grads) != 2:
        c.fail("wrong-arity", "NumpyCumsum.backward must return two values, one per forward input: the gradient "
                              "of x, then None for dim.")
    if grads[1] is not None:
        c.fail("missing-none", "NumpyCumsum.backward returned a gradient for dim, an int: return None in that "
                               "position.")


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def cumsum_once_differentiable(NumpyCumsum, cases=ONCE_CASES) -> None:
    """Asking for a second derivative must raise the @once_differentiable error; one input per seed of `cases`."""
    c.require_function(NumpyCumsum, CUMSUM)
    def one_case(seed) -> None:
        _cumsum_once_differentiable(NumpyCumsum, seed)
    c.each(cases, one_case)


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
    """Through autograd; where a mistake of the derivative rule (a forward that returns no tensor, a backward that
    autograd refuses: the values and gradcheck tests judge those) stops that road, on backward called directly as
    autograd calls it under create_graph=True, so one mistake costs its own rule's points."""
    try:
        _once_through_autograd(NumpyCumsum, seed)
    except c.Mistake as mistake:
        if mistake.code == "not-once-differentiable":
            raise
        try:
            _once_called_directly(NumpyCumsum, seed)
        except c.Mistake as direct:
            if direct.code == "not-once-differentiable":
                raise
            if direct.code != "negative-strides" or not _wrapped_once(NumpyCumsum):
                raise mistake from None
            # backward ran its NumPy kernel on a grad_output that requires grad (which only the decorator allows)
            # and failed after it, on the negative strides the values test names, and it is torch's own
            # once_differentiable wrapper: this rule is met (an unfilled or empty backward earns nothing here).


def _wrapped_once(NumpyCumsum) -> bool:
    facts = c.call(once_wrapper_facts, NumpyCumsum, what="NumpyCumsum.backward")
    return isinstance(facts, dict) and facts.get("wrapped") is True


@c.probe
def once_wrapper_facts(Fn) -> dict:
    """Probe: whether Fn.backward is the wrapper torch's once_differentiable returns (its code object, not its name).
    The answer's process reports it; forging it wins only this rule's point, which the decorator itself would win."""
    wrapper = torch.autograd.function.once_differentiable(lambda ctx: None)
    return {"wrapped": getattr(Fn.backward, "__code__", None) is wrapper.__code__}


def _once_called_directly(NumpyCumsum, seed: int) -> None:
    x = c.randn(3, 4, seed=seed, requires_grad=False)
    ctx = c.FakeCtx((True, False))
    with torch.no_grad():
        call(NumpyCumsum.forward, ctx, x, 1, what="NumpyCumsum.forward")
    g = c.randn(3, 4, seed=seed + 1)   # a grad_output with a history, as create_graph=True gives backward
    what = "NumpyCumsum.backward under create_graph=True"
    with explained(what, FIRST_ORDER_RULES), torch.enable_grad():
        grads = NumpyCumsum.backward(ctx, g)
    first = grads[0] if isinstance(grads, (tuple, list)) and grads else grads
    if not isinstance(first, torch.Tensor):
        c.fail("not-a-tensor", f"{what} returned {type(first).__name__} for x: return a tensor.")
    _require_second_raises(first, what)


def _require_second_raises(g, what: str) -> None:
    """Differentiating the gradient `g` again must raise the @once_differentiable error."""
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


def _once_through_autograd(NumpyCumsum, seed: int) -> None:
    x = c.randn(3, 4, seed=seed)
    y = call(NumpyCumsum.apply, x, 1, what="NumpyCumsum.forward")
    _require_output(y, x, "NumpyCumsum.apply(x, 1)")
    what = "NumpyCumsum.backward under create_graph=True"
    with explained(what, FIRST_ORDER_RULES):
        (g,) = torch.autograd.grad((y * y).sum(), [x], create_graph=True)
    _require_second_raises(g, what)
