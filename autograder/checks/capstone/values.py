"""The capstone's checks through ordinary autograd (notebook 14): values and gradients against torch.logsumexp,
stability at magnitudes 1e4, masked rows, every dim and keepdim, (grad_x, None, None) from backward, gradcheck and
gradgradcheck."""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.capstone.cases import (GRADCHECK_EXAMPLE, GRADGRAD_EXAMPLE, MASKED_EXAMPLE, NONE_EXAMPLE,
                                              SHAPE_EXAMPLE, STABILITY_EXAMPLE, VALUE_EXAMPLE)
from autograder.checks.capstone.nones import nones_supplied, require_nones_first
from autograder.checks.capstone.rules import (EXPAND_HINT, F64, GRAD_HINT, MASK_HINT, RULES, SHIFT_HINT, TWICE_HINT,
                                              VALUE_HINT, apply_lse, check_case, grads_of, in_logsumexp_shape,
                                              masked_input, torch_logsumexp, require_logsumexp, require_output_shape,
                                              run, set_up_ctx, tolerance)


# ------------------------------------------------------------------------------------------------ values

def values(LSE, cases=VALUE_EXAMPLE) -> None:
    """Value and gradient (for a random grad_output) against torch.logsumexp, in x's dtype."""
    require_logsumexp(LSE)
    LSE = nones_supplied(LSE)   # the Nones are the none test's
    judged = keepdim_judged(LSE)
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into (the
    # other tests give backward grad_outputs of their own)
    require_grad_output_kept(lambda: [(apply_lse(LSE, t, 1, judged(False)), [t]) for t in (
        c.randn(3, 4, seed=590), c.randn(3, 4, seed=591))], "the gradient of LogSumExp.apply(x, 1).sum()", "LogSumExp")
    def one_case(shape, dim, keepdim, dtype, seed) -> None:
        check_case(LSE, c.randn(*shape, seed=seed, dtype=dtype), dim, judged(keepdim), seed)
    c.each(cases, lambda case: one_case(*case))


# --------------------------------------------------------------------------------------------- stability

def _own_at(LSE, t, dim, keepdim, g):
    """The answer's own value and gradient (for grad_output g) at t, a fresh leaf: the reference of the stability
    checks, which measure stability, not whether the value and derivative are right (the values test's). Its value comes
    in torch.logsumexp(t, dim, False)'s shape whatever keepdim (an output's shape is the shapes test's)."""
    leaf = t.detach().clone().requires_grad_(True)
    y = in_logsumexp_shape(apply_lse(LSE, leaf, dim, keepdim), leaf, dim, False)
    (grad,) = grads_of(y, leaf, g.reshape(y.shape), what=f"LogSumExp.backward (dim={dim}, keepdim={keepdim})")
    return y.detach(), torch.zeros_like(leaf) if grad is None else grad.detach()


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def stability(LSE, cases=STABILITY_EXAMPLE) -> None:
    """Values and gradients stay finite at magnitudes 1e4 (overflow and underflow), and accurate: what the answer
    itself gives, in float64, for the same entries shifted down by their largest value (log-sum-exp moves with the
    shift, its gradient does not)."""
    require_logsumexp(LSE)
    LSE = nones_supplied(LSE)   # the Nones are the none test's
    keepdim = keepdim_judged(LSE)(False)
    def one_case(label, shift, scale, dtype, seed) -> None:
        base = c.randn(4, 6, seed=seed, requires_grad=False, dtype=F64) * scale + shift
        x = base.to(dtype).requires_grad_(True)
        y = in_logsumexp_shape(apply_lse(LSE, x, 1, keepdim), x, 1, False)
        if not bool(torch.isfinite(y).all()):
            c.fail("overflow", f"LogSumExp.apply(x, 1, {keepdim}) for {label} returned {y.detach().tolist()}: exp "
                               "overflowed (or underflowed to log(0)). " + SHIFT_HINT)
        g = torch.ones(4, dtype=dtype)
        (grad,) = grads_of(y, x, g, what=f"LogSumExp.backward for {label}")
        if grad is not None and not bool(torch.isfinite(grad).all()):
            c.fail("unstable-backward", f"the gradient of LogSumExp for {label} contains inf or nan. " + SHIFT_HINT)
        top = float(x.detach().max())
        shifted, expected_grad = _own_at(LSE, x.detach().to(F64) - top, 1, keepdim, g.to(F64))
        # A float64 answer that computes in float32 inside (the values rule's) is judged at float32's tolerance.
        exact = torch.softmax(x.detach().to(F64) - top, 1) * g.to(F64).unsqueeze(-1)
        judged = torch.float32 if dtype == F64 and c.off_by_float32(expected_grad, exact) else dtype
        expected, expected_grad = (shifted + top).to(dtype), expected_grad.to(dtype)
        rtol, atol = tolerance(x.detach().to(judged))
        c.require_close(y, expected, f"LogSumExp.apply(x, 1, {keepdim}) for {label}", "inaccurate-forward",
                        SHIFT_HINT, rtol=rtol, atol=atol)
        grad_atol = 1e-9 if judged == F64 else 16 * torch.finfo(judged).eps * float(x.detach().abs().max())
        c.require_close(grad, expected_grad, f"the gradient of LogSumExp for {label}", "inaccurate-backward",
                        SHIFT_HINT, rtol=1e-6, atol=grad_atol)
    c.each(cases, lambda case: one_case(*case))


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def masked_rows(LSE, cases=MASKED_EXAMPLE) -> None:
    """Rows with -inf entries (masked positions) and a fully masked row: -inf for the fully masked row (never nan),
    as torch.logsumexp gives, and on every row that keeps a finite entry the value and gradient the answer itself
    gives with the -inf entries made finite but negligible. (On a fully masked row torch.logsumexp's own gradient is
    nan, pytorch#49724: it is not compared.)"""
    require_logsumexp(LSE)
    LSE = nones_supplied(LSE)   # the Nones are the none test's
    judged = keepdim_judged(LSE)
    def one_case(shape, dim, keepdim, dtype, seed) -> None:
        keepdim = judged(keepdim)
        x, kept = masked_input(shape, dim, dtype, seed)
        x.requires_grad_(True)
        what = f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape} with masked (-inf) entries"
        y = in_logsumexp_shape(apply_lse(LSE, x, dim, keepdim, what=what), x, dim, keepdim)
        expected, _ = torch_logsumexp(x, dim, keepdim)
        flat_y, flat_expected = y.detach().reshape(kept.shape), expected.reshape(kept.shape)
        if bool(torch.isnan(flat_y[~kept]).any()):
            c.fail("masked-row-nan", f"{what}: a row whose entries are all -inf gave nan, where torch.logsumexp "
                                     "gives -inf. " + MASK_HINT)
        rtol, atol = tolerance(x)
        c.require_close(flat_y[~kept], flat_expected[~kept], what, "wrong-forward", VALUE_HINT, rtol=rtol, atol=atol)
        # The rows that keep a finite entry against the answer's own results with each -inf replaced by -1e3 (whose
        # exp is 0 in float32 and float64 alike): masking is this test's, the values the values test's.
        g = c.randn(*y.shape, seed=seed + 1, requires_grad=False, dtype=dtype)
        filled = x.detach().masked_fill(torch.isinf(x.detach()), -1e3)
        own, expected_grad = _own_at(LSE, filled, dim, keepdim, g)
        c.require_close(flat_y[kept], own.reshape(kept.shape)[kept], what, "wrong-forward", VALUE_HINT,
                        rtol=rtol, atol=atol)
        (grad,) = grads_of(y, x, g, what=f"LogSumExp.backward for {what}")
        rows = kept.unsqueeze(dim).expand_as(x)
        c.require_close(grad[rows], expected_grad[rows], f"the gradient of {what}, on the rows that keep a finite "
                        "entry", "wrong-derivative", "a masked entry gets gradient 0 (exp(-inf - output) = 0), the "
                        "others softmax(x) along dim times grad_output. " + GRAD_HINT, rtol=rtol, atol=atol)
    c.each(cases, lambda case: one_case(*case))


# ------------------------------------------------------------------------------------------------ shapes

@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def shapes(LSE, cases=SHAPE_EXAMPLE) -> None:
    """Output and gradient shapes for every dim (negative too) and both keepdim values, with a random grad_output:
    the output has torch.logsumexp's shape, the gradient x's, and both are what the answer itself gives for the same
    dim counted from the front with keepdim=True (where no dim is dropped or renumbered). Square inputs catch a
    grad_output broadcast along the wrong dimension. Whether those numbers are right is the values test's."""
    require_logsumexp(LSE)
    LSE = nones_supplied(LSE)   # the Nones are the none test's
    rows = [(shape, dim, keepdim, seed + 2 * (dim + len(shape)) + (not keepdim)) for shape, seed in cases
            for dim in range(-len(shape), len(shape)) for keepdim in (True, False)]
    c.each(rows, lambda row: _shape_case(LSE, c.randn(*row[0], seed=row[3]), *row[1:]))


def _shape_case(LSE, x, dim: int, keepdim: bool, seed: int) -> None:
    what = f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)} ({x.dtype})"
    y = apply_lse(LSE, x, dim, keepdim)
    require_output_shape(y, x, dim, keepdim)
    g = c.randn(*y.shape, seed=seed + 500, requires_grad=False, dtype=x.dtype)
    (grad,) = grads_of(y, x, g, what=f"LogSumExp.backward (dim={dim}, keepdim={keepdim}, x of shape {tuple(x.shape)})")
    if grad is None:
        c.fail("no-graph", "x received no gradient: is the output connected to x through LogSumExp.apply?")
    c.require_shape(grad, x.shape, f"the gradient of {what}", "wrong-grad-shape")
    front = dim % x.dim()
    if (front, True) == (dim, keepdim):
        return
    leaf = x.detach().clone().requires_grad_(True)
    kept = apply_lse(LSE, leaf, front, True)
    require_output_shape(kept, x, front, True)
    (kept_grad,) = grads_of(kept, leaf, g.reshape(kept.shape),
                            what=f"LogSumExp.backward (dim={front}, keepdim=True, x of shape {tuple(x.shape)})")
    rtol, atol = tolerance(x)
    c.require_close(y, kept.detach().reshape(y.shape), f"{what}, against your LogSumExp.apply(x, {front}, True)",
                    "wrong-output-shape", "the same numbers whatever the dim's sign and keepdim.", rtol=rtol, atol=atol)
    kept_grad = torch.zeros_like(x) if kept_grad is None else kept_grad
    where = f"the gradient of {what}, against your gradient for dim={front}, keepdim=True"
    if keepdim:
        c.require_close(grad, kept_grad, where, "wrong-derivative", GRAD_HINT, rtol=rtol, atol=atol)
    c.require_close(grad, kept_grad, where, "no-unsqueeze", EXPAND_HINT, rtol=rtol, atol=atol)


# keepdim=False's own part of backward (grad_output and the saved output unsqueezed at dim) is the shapes rule's: when
# the answer's keepdim=False breaks it, the other rules' tests judge their cases with keepdim=True, where it plays no
# part, so that one mistake costs the shapes test only.
_SHAPES_CODES = frozenset({"no-unsqueeze", "wrong-output-shape", "wrong-grad-shape"})
_KEEPDIM_PROBES = (((3, 4), 1, 991), ((3, 3), 0, 992), ((2, 3, 4), 1, 993), ((2, 3, 4), -1, 994))


def keepdim_judged(LSE):
    """keepdim -> the keepdim a test of another rule than shapes judges a case with: the case's own, or True when
    the answer's keepdim=False fails the shapes test's property (on a few dims and shapes)."""
    try:
        c.each(_KEEPDIM_PROBES, lambda p: _shape_case(LSE, c.randn(*p[0], seed=p[2]), p[1], False, p[2]))
    except c.Mistake as mistake:
        if mistake.code in _SHAPES_CODES:
            return lambda keepdim: True
    return lambda keepdim: keepdim


# ------------------------------------------------------------------------------------------ None for dim

@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def none_for_dim_and_keepdim(LSE, cases=NONE_EXAMPLE) -> None:
    """backward called directly returns exactly (grad_x, None, None)."""
    require_logsumexp(LSE)
    judged = keepdim_judged(LSE)
    def one_case(dim, keepdim, seed) -> None:
        keepdim = judged(keepdim)
        x = c.randn(3, 4, seed=seed, requires_grad=False)
        out, ctx = set_up_ctx(LSE, x, dim, keepdim)
        # as a lambda: a backward that writes into its grad_output (a fresh one) is the values test's rule
        grads = run(lambda: LSE.backward(ctx, torch.ones_like(out)),
                    what=f"LogSumExp.backward called directly (dim={dim}, keepdim={keepdim})")
        _none_verdict(grads, x, dim, keepdim, "")
        # The same with the node autograd made for LogSumExp.apply as backward's ctx (a stand-in can be recognised).
        leaf = x.detach().clone().requires_grad_(True)
        what = f"LogSumExp.backward with autograd's own node as its ctx (dim={dim}, keepdim={keepdim})"
        with c.explained(what, RULES):
            real = behaviour.backward_by_its_node(LSE, (leaf, dim, keepdim), torch.ones_like(out), what=what,
                                                  rules=RULES, as_returned=True)
        if real is not None:
            _none_verdict(real, x, dim, keepdim, "Called directly, your backward returned (grad_x, None, None); but "
                                                 "with the node autograd made for LogSumExp.apply as its ctx, ")
    c.each(cases, lambda case: one_case(*case))


def _none_verdict(grads, x, dim, keepdim, lead: str) -> None:
    """What backward returned: exactly (grad_x of x's shape, None, None). `lead` starts the feedback when it is
    autograd's own node that was the ctx."""
    if isinstance(grads, torch.Tensor) or not isinstance(grads, (tuple, list)):
        c.fail("missing-none",
               f"{lead}LogSumExp.backward returned a single value, but forward takes three inputs (x, dim, "
               "keepdim): return (grad_x, None, None), None for the int dim and for the bool keepdim.")
    if len(grads) != 3:
        c.fail("wrong-arity",
               f"{lead}LogSumExp.backward returned {len(grads)} values, but forward takes three inputs (x, dim, "
               "keepdim): return (grad_x, None, None).")
    if grads[1] is not None or grads[2] is not None:
        c.fail("missing-none",
               f"{lead}LogSumExp.backward must return None for dim and for keepdim (they are an int and a bool, "
               f"not tensors), got {behaviour.type_name(grads[1])} and {behaviour.type_name(grads[2])}.")
    c.require_shape(grads[0], x.shape, f"{lead}the gradient of x returned by backward (dim={dim}, "
                    f"keepdim={keepdim})", "wrong-grad-shape")


# ---------------------------------------------------------------------------------- gradcheck, gradgrad

def gradcheck(LSE, cases=GRADCHECK_EXAMPLE) -> None:
    """float64 gradcheck of LogSumExp.apply over shapes, dims and keepdim."""
    require_logsumexp(LSE)
    LSE = nones_supplied(LSE)   # the Nones are the none test's
    judged = keepdim_judged(LSE)
    def one_case(shape, dim, keepdim, seed) -> None:
        keepdim = judged(keepdim)
        x = c.randn(*shape, seed=seed)
        what = f"LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
        # a forward that changes x in place (the values rule, as this test is) moves the points gradcheck perturbs:
        # named as what it is, not as a wrong derivative
        apply_lse(LSE, x.detach().clone().requires_grad_(True), dim, keepdim)
        with c.explained(what, RULES):
            c.gradcheck(lambda t: LSE.apply(t, dim, keepdim), (x,), what,
                        hint=EXPAND_HINT if not keepdim else GRAD_HINT,
                        reference=lambda t: torch.logsumexp(t, dim, keepdim))
    c.each(cases, lambda case: one_case(*case))


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def gradgradcheck(LSE, cases=GRADGRAD_EXAMPLE) -> None:
    """float64 gradgradcheck (backward differentiable, output saved and used)."""
    require_logsumexp(LSE)
    require_nones_first(LSE, "second derivatives (backward differentiated again)")
    judged = keepdim_judged(LSE)
    def one_case(shape, dim, keepdim, seed) -> None:
        keepdim = judged(keepdim)
        x = c.randn(*shape, seed=seed)
        what = f"LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
        with c.explained(what, RULES):
            # on copies (a forward changing x is the values' rule); * 1.0: backward gets a grad_output of its own
            # (writing into gradgradcheck's is the values' rule too)
            f = c.judged_elsewhere.on_copies(lambda t: LSE.apply(t, dim, keepdim) * 1.0)
            c.gradgradcheck(f, (x,), what, hint=TWICE_HINT,
                            reference=lambda t: torch.logsumexp(t, dim, keepdim))
    c.each(cases, lambda case: one_case(*case))
