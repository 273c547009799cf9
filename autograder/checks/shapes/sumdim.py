"""Checks for notebook 03's `SumDim` (see `shapes`): `SumDim.apply(x, dim, keepdim)` is
`x.sum(dim, keepdim=keepdim)`; the gradient of x has x's shape.

`sumdim_shape` calls forward and backward directly (`shapes/direct.py`) and with the node autograd made for
`.apply` as the ctx (`behaviour.backward_by_its_node`), and needs both to pass.
"""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common import Rule
from autograder.checks.common.shared_grad_output import as_sent, own_grad_output, require_grad_output_kept
from autograder.checks.shapes.direct import direct_call, fmt


SUM_CASES = [((3, 4), 1, False), ((3, 4), 0, False), ((3, 4), -1, True), ((3, 4), 1, True),
             ((2, 3, 4), 1, False), ((2, 3, 4), -2, True), ((2, 3, 4), 2, False), ((2, 3, 4), -1, False),
             ((2, 3, 4), -3, False), ((4, 4), 1, False), ((4, 4), -1, False), ((3,), 0, False),
             ((3,), -1, True), ((2, 1, 3), 1, False), ((3, 3, 3), 0, True)]
# Sums over the first dimension without keepdim, where grad_output lines up with x from the right and so needs
# no unsqueeze (with or without one it is right): the tests of the other rules use them, so that putting the summed
# dimension back (or not) costs only sumdim_values' point.
# (A negative dim is sumdim_values' too: which dimension it names is part of putting it back.)
SUM_LEADING_CASES = [((3, 4), 0, False), ((2, 3, 4), 0, False), ((3,), 0, False), ((1, 5), 0, False),
                     ((2, 1, 3), 0, False), ((4, 4), 0, False), ((5, 2), 0, False), ((2, 2, 2, 2), 0, False)]
SUM_NONE_CASES = (((3, 4), 0, False), ((2, 3, 4), 0, False))
SUM_GRADCHECK_CASES = tuple((shape, dim, keepdim, 20 * seed + k)        # ... and a seed
                            for seed in (0, 1) for k, (shape, dim, keepdim) in enumerate(SUM_LEADING_CASES))
INPUTS_SUM = ("x", "dim", "keepdim")
_SUM_HINT = ("backward must hand every element of x the gradient of the sum it went into: "
             "grad_output.unsqueeze(dim) (only when keepdim is False), then .expand(x.shape).")

# The errors a wrong SumDim.backward produces, then the engine's own.
SUM_RULES = (
    Rule("missing-unsqueeze", "The expanded size of the tensor",
         "{what}: backward could not expand grad_output to x's shape ({line}). With keepdim=False the summed "
         "dimension is gone from grad_output, so expand lines it up against the wrong dimensions: put it back "
         "first with grad_output.unsqueeze(dim) (a negative dim counts from the end of x's shape, not "
         "grad_output's).", types=(RuntimeError,)),
    Rule("unsqueeze-with-keepdim", "must be greater or equal to the number of dimensions in the tensor",
         "{what}: backward made grad_output longer than x ({line}). With keepdim=True grad_output already has "
         "the summed dimension (size 1): unsqueeze only when keepdim is False.", types=(RuntimeError,)),
    Rule("missing-expand", error="wrong-grad-shape", when=lambda facts: facts["index"] == 0, message=
         "{what}: backward returned a gradient of shape [{got}] for input 1 (x) of shape [{expected}]. "
         "grad_output has the reduced shape of the output; expand it back to x's shape "
         "(grad_output.unsqueeze(dim) when keepdim is False, then .expand(x.shape)).", types=(RuntimeError,)),
) + c.engine_rules(INPUTS_SUM)


def _sum_what(shape, dim, keepdim) -> str:
    return f"SumDim.apply(x, {dim}, {keepdim}) with x of shape {fmt(shape)}"


# What autograd refuses in backward's return that another test than the derivative's judges: the values for dim and
# keepdim (sumdim_none) and a gradient of x not expanded to x's shape (sumdim_shape).
_NONES_REFUSED = ("wrong-arity", "missing-none")
_SHAPE_REFUSED = ("missing-expand",)


def _sum_engine(SumDim, x, dim, keepdim, g):
    return _sum_grad(SumDim, x, dim, keepdim, g)[0]


def _sum_grad(SumDim, x, dim, keepdim, g):
    """(the gradient of x for grad_output g, whether autograd gave it). Where autograd refuses backward's return for
    its values for dim and keepdim (their count, or a gradient where None belongs: sumdim_none's rule) or for a
    gradient of x with grad_output's shape (not expanded: sumdim_shape's rule), the gradient of x is what backward
    returned first, with the node autograd made as its ctx (and, not expanded, expanded as sumdim_shape asks): the
    derivative's tests judge its numbers alone."""
    what = _sum_what(x.shape, dim, keepdim)
    out = c.call(SumDim.apply, x, dim, keepdim, what="SumDim.forward", names=INPUTS_SUM)
    c.require_close(out, x.detach().sum(dim, keepdim=keepdim), what, "wrong-forward",
                    "forward returns x.sum(dim, keepdim=keepdim).")
    c.require_own_node(out, SumDim, "SumDim")
    try:
        with c.explained(what, SUM_RULES):
            (grad,) = torch.autograd.grad(out, [x], as_sent(g))  # its own: the check uses g again
        return grad, True
    except c.Mistake as refused:
        if refused.code not in _NONES_REFUSED + _SHAPE_REFUSED:
            raise
        mistake = refused
    grads = behaviour.backward_by_its_node(SumDim, behaviour.fresh((x, dim, keepdim)), g, what=what, rules=SUM_RULES)
    grad = grads[0] if grads else None
    if not isinstance(grad, torch.Tensor):
        c.fail("missing-gradient", f"{what}: backward returned {behaviour.type_name(grad)} as the gradient of x: "
                                   "return a tensor of x's shape first.")
    if tuple(grad.shape) != tuple(x.shape):
        if mistake.code not in _SHAPE_REFUSED or grad.numel() != g.numel():
            raise mistake
        grad = grad.reshape(x.detach().sum(dim, keepdim=True).shape).expand(x.shape)
    return grad, False


def _expected_sum_grad(shape, dim, keepdim, g):
    return (g if keepdim else g.unsqueeze(dim)).expand(shape)


def sumdim_values(SumDim, cases=(SUM_CASES[0], SUM_CASES[3])) -> None:
    """Values and gradient through autograd, one case per (x's shape, dim, keepdim)."""
    c.require_function(SumDim, "SumDim")
    c.require_self_contained(SumDim, "SumDim")
    _require_grad_output_shape_kept(SumDim)  # first: the cases below compute their expectations from grad_output
    def one_case(case) -> None:
        k, (shape, dim, keepdim) = case
        x = c.randn(*shape, seed=900 + k)
        out_shape = x.detach().sum(dim, keepdim=keepdim).shape
        g = c.randn(*out_shape, seed=1000 + k, requires_grad=False)
        # (a copy to autograd: a backward that changes grad_output's shape in place is judged first, by a probe)
        grad = _sum_engine(SumDim, x, dim, keepdim, g.clone())
        c.require_close(grad, _expected_sum_grad(shape, dim, keepdim, g),
                        f"the gradient of x for {_sum_what(shape, dim, keepdim)}", "wrong-derivative", _SUM_HINT)
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into
    shape, dim, keepdim = SUM_LEADING_CASES[0]
    require_grad_output_kept(lambda: [(SumDim.apply(t, dim, keepdim), [t]) for t in (c.randn(*shape, seed=1800),)],
                             f"the gradient of {_sum_what(shape, dim, keepdim)}, summed", "SumDim", INPUTS_SUM)
    c.each(enumerate(cases), one_case)
    _require_state_per_call(SumDim)


def _require_grad_output_shape_kept(SumDim) -> None:
    """backward must leave grad_output's shape alone: unsqueeze_ changes it in place, and grad_output belongs to
    autograd. Seen where backward runs (`_grad_output_shape_kept`, a probe): through autograd a copy of grad_output
    reaches the learner's process when grading, and no change of its shape comes back."""
    if _grad_output_shape_kept(SumDim) is False:
        c.fail("inplace-grad-output", f"{_sum_what((3, 4), 1, False)}: backward changed grad_output in place (its shape "
                                      "is no longer (3,)): grad_output belongs to autograd, which may hand it to other "
                                      "consumers too. Build a new tensor from it (grad_output.unsqueeze(dim), not "
                                      "unsqueeze_).")


@c.probe
def _grad_output_shape_kept(SumDim) -> bool | None:
    """Probe: whether the shape of the grad_output handed to SumDim.apply(x, 1, False)'s backward is the same after it
    (None where the call or its backward fails: the cases say why)."""
    x = torch.ones(3, 4, dtype=torch.float64, requires_grad=True)
    grad_output = torch.ones(3, dtype=torch.float64)
    try:
        torch.autograd.grad(SumDim.apply(x, 1, False), [x], grad_output)
    except Exception:  # noqa: BLE001 - judged by the cases
        return None
    return tuple(grad_output.shape) == (3,)


def _require_state_per_call(SumDim) -> None:
    """A call's dim, keepdim and x's shape stay that call's: the first call's backward, run after a second call with
    other ones, gives what it gives alone (state kept on the class or a global is overwritten by the next call)."""
    x, g = c.randn(3, 4, seed=1700), c.randn(3, seed=1701, requires_grad=False)
    what = f"{_sum_what((3, 4), 1, False)}, backward run after a second call SumDim.apply(y, 0, True)"
    alone = behaviour.backward_by_its_node(SumDim, (x, 1, False), g, what=what, rules=SUM_RULES)
    expected = _expected_sum_grad((3, 4), 1, False, g)
    if not alone or not isinstance(alone[0], torch.Tensor) or tuple(alone[0].shape) != (3, 4) \
            or not bool(torch.allclose(alone[0], expected, rtol=1e-7, atol=1e-7)):
        return  # wrong on its own: the cases above say why
    try:
        between = behaviour.backward_by_its_node(SumDim, behaviour.fresh((x, 1, False)), g, what=what,
                                                 rules=SUM_RULES, then=((c.randn(2, 3, 4, seed=1702), 0, True),))
    except c.Mistake:
        between = None
    if not between or not isinstance(between[0], torch.Tensor) or tuple(between[0].shape) != (3, 4) \
            or not bool(torch.allclose(between[0], expected, rtol=1e-7, atol=1e-7)):
        c.fail("shared-state", f"{what}: the first call's gradient changed with the second call. Keep dim, keepdim "
                               "and x's shape on ctx (ctx.dim = dim), not on the class or a global: ctx is new for "
                               "every call.")


def sumdim_gradcheck(SumDim, cases=(((3, 4), 0, False, 0), ((2, 3, 4), 0, False, 1))) -> None:
    """float64 gradcheck, one case per (x's shape, dim, keepdim, seed), on sums that need no unsqueeze
    (SUM_LEADING_CASES): the gradient's values, not where the summed dimension goes back."""
    c.require_function(SumDim, "SumDim")
    def one_case(shape, dim, keepdim, seed) -> None:
        x = c.randn(*shape, seed=1100 + seed)
        out_shape = x.detach().sum(dim, keepdim=keepdim).shape
        g = c.randn(*out_shape, seed=1200 + seed, requires_grad=False)
        grad, through_autograd = _sum_grad(SumDim, x, dim, keepdim, g)  # clear errors first
        if not through_autograd:  # autograd refuses the Nones (sumdim_none's rule): x's gradient alone, by its node
            c.require_close(grad, _expected_sum_grad(shape, dim, keepdim, g),
                            f"the gradient of x for {_sum_what(shape, dim, keepdim)}", "wrong-derivative", _SUM_HINT)
            return
        # each row's backward its own grad_output: a write into it is the values test's rule (inplace-grad-output)
        c.gradcheck(own_grad_output(lambda t, d=dim, kd=keepdim: SumDim.apply(t, d, kd)), (x,),
                    _sum_what(shape, dim, keepdim), hint=_SUM_HINT, names=INPUTS_SUM[:1],
                    reference=lambda t, d=dim, kd=keepdim: t.sum(d, keepdim=kd))
    c.each(cases, lambda case: one_case(*case))


@c.inputs_judged_elsewhere()
def sumdim_shape(SumDim, cases=(((4, 4), 0, False), ((2, 3, 4), 0, False))) -> None:
    """backward called directly returns a gradient of EXACTLY x's shape (its values are sumdim_values' and
    sumdim_gradcheck's rule), on sums that need no unsqueeze (SUM_LEADING_CASES)."""
    c.require_function(SumDim, "SumDim")
    for k, (shape, dim, keepdim) in enumerate(cases):
        _where_backward_can_expand(lambda kd, k=k, shape=shape, dim=dim: _sum_shape_one(SumDim, k, shape, dim, kd),
                                   keepdim)


# Where backward cannot put the summed dimension back (sumdim_values' rule), the tests of the other rules judge the same
# sum with keepdim=True, where there is nothing to put back.
_PUTTING_BACK = ("missing-unsqueeze", "unsqueeze-with-keepdim")


def _where_backward_can_expand(check_one, keepdim: bool) -> None:
    try:
        check_one(keepdim)
    except c.Mistake as failed:
        if failed.code not in _PUTTING_BACK or keepdim:
            raise
        try:
            check_one(True)
        except c.Mistake as again:
            raise (failed if again.code in _PUTTING_BACK else again) from None


def _sum_shape_one(SumDim, k, shape, dim, keepdim) -> None:
    x = c.randn(*shape, seed=1300 + k)
    out_shape = x.detach().sum(dim, keepdim=keepdim).shape
    g = c.randn(*out_shape, seed=1400 + k, requires_grad=False)
    what = _sum_what(shape, dim, keepdim)
    with c.explained(what, SUM_RULES):
        out, grads = direct_call(SumDim, "SumDim", (True, False, False), (x, dim, keepdim), g)
    c.require_shape(out, out_shape, f"SumDim.forward for {what}", code="wrong-forward")
    grad = grads[0] if grads else None
    if not isinstance(grad, torch.Tensor):
        c.fail("missing-gradient", f"{what}: backward returned {type(grad).__name__} as the gradient of x: "
                                   "return a tensor of x's shape first.")
    if tuple(grad.shape) != tuple(shape):
        c.fail("wrong-grad-shape",
               f"{what}: the gradient of x has shape {fmt(grad.shape)} but x has shape {fmt(shape)}: "
               "expand grad_output back to x's shape (unsqueeze(dim) first when keepdim is False).")
    _sum_shape_by_its_node(SumDim, x, dim, keepdim, g, what)


def _sum_shape_by_its_node(SumDim, x, dim, keepdim, g, what: str) -> None:
    """sumdim_shape's rule once more, with the node autograd made for SumDim.apply as backward's ctx
    (`behaviour.backward_by_its_node`): a stand-in ctx can be recognised, autograd's own node cannot."""
    with c.explained(what, SUM_RULES):
        grads = behaviour.backward_by_its_node(SumDim, behaviour.fresh((x, dim, keepdim)), g, what=what,
                                               rules=SUM_RULES)
    if grads is None:
        return  # no node of its own: sumdim_values says so
    grad = grads[0] if grads else None
    lead = (f"{what}: called directly, backward returned a gradient of x's shape; but with the node autograd made "
            "as its ctx,")
    if not isinstance(grad, torch.Tensor):
        c.fail("missing-gradient", f"{lead} it returned {behaviour.type_name(grad)} as the gradient of x: return a "
                                   "tensor of x's shape whatever the ctx.")
    if tuple(grad.shape) != tuple(x.shape):
        c.fail("wrong-grad-shape",
               f"{lead} the gradient of x has shape {fmt(grad.shape)} but x has shape {fmt(x.shape)}: expand "
               "grad_output back to x's shape (unsqueeze(dim) first when keepdim is False) whatever the ctx.")


@c.inputs_judged_elsewhere()
def sumdim_none(SumDim, cases=SUM_NONE_CASES[:1]) -> None:
    """backward returns exactly three values, None for dim and keepdim (directly, and with autograd's node as its
    ctx); what the gradient of x is, is the other tests' rule."""
    c.require_function(SumDim, "SumDim")
    for k, (shape, dim, keepdim) in enumerate(cases):
        _where_backward_can_expand(lambda kd, k=k, shape=shape, dim=dim: _sum_none_one(SumDim, k, shape, dim, kd),
                                   keepdim)


def _sum_none_one(SumDim, k, shape, dim, keepdim) -> None:
    x = c.randn(*shape, seed=1500 + k)
    g = torch.ones(x.detach().sum(dim, keepdim=keepdim).shape, dtype=x.dtype)
    what = _sum_what(shape, dim, keepdim)
    with c.explained(what, SUM_RULES):
        _, grads = direct_call(SumDim, "SumDim", (True, False, False), (x, dim, keepdim), g)
    if len(grads) != 3:
        c.fail("wrong-arity", f"{what}: backward returned {len(grads)} value(s) but forward takes 3 inputs "
                              "(x, dim, keepdim): return the gradient of x, then None, None.")
    for index in (1, 2):
        if grads[index] is not None:
            name = INPUTS_SUM[index]
            c.fail("missing-none",
                   f"{what}: backward returned a {type(grads[index]).__name__} for input {index + 1} ({name}), "
                   f"but {name} is a plain Python value with no gradient: return None there.")
    _sum_none_by_its_node(SumDim, x, dim, keepdim, g, what)


def _sum_none_by_its_node(SumDim, x, dim, keepdim, g, what: str) -> None:
    """sumdim_none's rule once more, with the node autograd made for SumDim.apply as backward's ctx: the count of
    values and the Nones only (the gradient of x is the other tests')."""
    grads = behaviour.backward_by_its_node(SumDim, behaviour.fresh((x, dim, keepdim)), g, what=what, rules=SUM_RULES)
    if grads is None:
        return  # no node of its own: sumdim_values says so
    lead = f"{what}: called directly, backward returned None, None; but with the node autograd made as its ctx,"
    if len(grads) != 3:
        c.fail("wrong-arity", f"{lead} it returned {len(grads)} value(s) but forward takes 3 inputs (x, dim, keepdim): "
                              "return the gradient of x, then None, None.")
    for index in (1, 2):
        if grads[index] is not None:
            name = INPUTS_SUM[index]
            c.fail("missing-none", f"{lead} it returned a {behaviour.type_name(grads[index])} for input {index + 1} "
                                   f"({name}), but {name} is a plain Python value with no gradient: return None there.")
