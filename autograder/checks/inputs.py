"""Checks for `ScaledAdd` (notebook 02): `ScaledAdd.apply(x, y, alpha)` returns `x + alpha * y`. `alpha` is a Python
float. backward returns `(grad_x, grad_y, None)`, with None for a tensor whose `ctx.needs_input_grad` entry is False."""

from __future__ import annotations

import torch

from autograder.checks import behaviour, common as c
from autograder.checks.common import Rule

NAME = "ScaledAdd"
SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
ALPHAS = (2.5, -0.75, 3.0)
INPUTS = ("x", "y", "alpha")
_BY_NODE = f"{NAME}.backward with autograd's own node as its ctx"


_RETURN = "the gradients of x and y, then None for alpha"

# The engine's generic arity / None errors and save_for_backward's TypeError, re-worded for ScaledAdd's three
# inputs (from the facts of the engine's mistake: `got`, `expected`, `position`).
RULES = (
    Rule("wrong-arity", mistake="wrong-arity", when=lambda facts: facts.get("got") == 1,
         message="{what}: backward returned 1 gradient but forward takes 3 inputs (x, y, alpha). Return a tuple "
                 f"with one value per input, in order: {_RETURN} (a list or a single tensor counts as one value)."),
    Rule("wrong-arity", mistake="wrong-arity",
         when=lambda facts: isinstance(facts.get("got"), int) and facts["got"] < 3,
         message="{what}: backward returned {got} gradients but forward takes 3 inputs (x, y, alpha): return None "
                 f"for the float alpha, i.e. {_RETURN}."),
    Rule("wrong-arity", mistake="wrong-arity", when=lambda facts: "got" in facts,
         message="{what}: backward returned {got} gradients but forward takes 3 inputs (x, y, alpha): return "
                 f"exactly one value per input, {_RETURN}."),
    Rule("grad-for-float", mistake="missing-none",
         message="{what}: backward returned a gradient for input 3 (alpha), but alpha is a Python float, not a "
                 f"tensor: return None for the float alpha, i.e. {_RETURN}."),
    Rule("saved-a-float", error="saved-a-float", types=(TypeError,),
         message="{what}: ctx.save_for_backward only takes tensors, and alpha is a Python float: keep it as a "
                 "plain attribute, `ctx.alpha = alpha`."),
)

VALUES_CASES = (([1.0, -2.0, 0.5], [0.25, 3.0, -1.0], 2.5, [1.0, 2.0, -3.0]),)   # (x, y, alpha, grad_output)
# (shape, seed, alpha): every alpha meets every shape across the seeds.
GRADCHECK_CASES = tuple((shape, seed, ALPHAS[(seed + i) % len(ALPHAS)])
                        for seed in (0, 1, 2) for i, shape in enumerate(SHAPES))
NONE_CASES = (((3,), 0), ((2, 3), 1), ((2, 3, 4), 2))          # (shape, seed)
NEEDS_CASES = (((3,), 10), ((4,), 10), ((2, 3), 11))
ALPHA_CASES = (((3,), 30), ((3, 4), 30), ((2, 5), 40))


def _tensors(shape, seed):
    return c.randn(*shape, seed=seed), c.randn(*shape, seed=seed + 100)


def _grad_output(shape, seed):
    return c.randn(*shape, seed=seed + 200, requires_grad=False)


class _Ctx(c.FakeCtx):
    """FakeCtx whose save_for_backward refuses non-tensors, as the real ctx does."""

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, torch.Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        super().save_for_backward(*tensors)


def _forward_on_ctx(ScaledAdd, needs, x, y, alpha, what):
    """(ctx, output) of forward called with a crafted ctx. A forward that gives save_for_backward the float alpha
    (refused by the real ctx: the alpha test's rule) runs again on a ctx that keeps whatever it is given, so that
    the other tests judge what backward does with it."""
    for ctx in (_Ctx(needs_input_grad=needs), c.FakeCtx(needs_input_grad=needs)):
        try:
            with c.explained(what, RULES):
                return ctx, _forward(ScaledAdd, ctx, x.detach(), y.detach(), alpha)
        except c.Mistake as refused:
            if refused.code != "saved-a-float" or not isinstance(ctx, _Ctx):
                raise


def _forward(ScaledAdd, ctx, x, y, alpha):
    """forward on a crafted ctx, in either spelling: forward(ctx, ...) or forward(...) + setup_context."""
    if c.uses_setup_context(ScaledAdd):
        out = c.call(ScaledAdd.forward, x, y, alpha, what=f"{NAME}.forward", names=INPUTS)
        c.call(ScaledAdd.setup_context, ctx, (x, y, alpha), out, what=f"{NAME}.setup_context", names=INPUTS)
        return out
    return c.call(ScaledAdd.forward, ctx, x, y, alpha, what=f"{NAME}.forward", names=INPUTS)


def _by_its_node(ScaledAdd, inputs, g, **kwargs):
    """behaviour.backward_by_its_node, or None where autograd refuses forward's save_for_backward of the float alpha
    (there is no node: the alpha test names it)."""
    try:
        return behaviour.backward_by_its_node(ScaledAdd, inputs, g, names=INPUTS, rules=RULES, **kwargs)
    except c.Mistake as refused:
        if refused.code != "saved-a-float":
            raise
    return None


def _direct_backward(ScaledAdd, needs, x, y, alpha, g, what):
    """Call forward and backward with a crafted ctx; return the tuple backward returned."""
    ctx, _ = _forward_on_ctx(ScaledAdd, needs, x, y, alpha, what)
    with c.explained(what, RULES):
        # on a copy of grad_output: whether backward writes into it is the values test's rule
        grads = c.call(lambda ctx: ScaledAdd.backward(ctx, g.clone()), ctx, what=f"{NAME}.backward", names=INPUTS)
    if not isinstance(grads, tuple):
        if isinstance(grads, list):
            c.fail("returns-a-list",
                   f"{what}: backward returned a list; autograd counts a list as ONE gradient. Return a tuple of "
                   "three values, the gradients of x and y, then None for alpha.")
        c.fail("wrong-arity",
               f"{what}: backward returned a single {type(grads).__name__} but forward takes 3 inputs "
               "(x, y, alpha): return three values, the gradients of x and y, then None for alpha.")
    if len(grads) < 3:
        c.fail("wrong-arity",
               f"{what}: backward returned {len(grads)} gradients but forward takes 3 inputs (x, y, alpha): "
               "return None for the float alpha, after the gradients of x and y.")
    if any(extra is not None for extra in grads[3:]):
        c.fail("wrong-arity",
               f"{what}: backward returned {len(grads)} values but forward takes 3 inputs (x, y, alpha): "
               "return exactly three values: the gradients of x and y, then None for alpha.")
    if grads[2] is not None:
        c.fail("grad-for-float",
               f"{what}: backward returned a {type(grads[2]).__name__} for input 3 (alpha), but alpha is a Python "
               "float: return None for the float alpha, after the gradients of x and y.")
    return grads


def _check_pair(grad_x, grad_y, g, alpha, what, rtol=1e-7, atol=1e-7):
    """grad_x must be g and grad_y alpha * g; recognise the swapped order and a missing alpha."""
    gx_ok = isinstance(grad_x, torch.Tensor) and grad_x.shape == g.shape and \
        bool(torch.allclose(grad_x.detach(), g, rtol=rtol, atol=atol))
    gy_ok = isinstance(grad_y, torch.Tensor) and grad_y.shape == g.shape and \
        bool(torch.allclose(grad_y.detach(), alpha * g, rtol=rtol, atol=atol))
    if gx_ok and gy_ok:
        return
    if isinstance(grad_x, torch.Tensor) and isinstance(grad_y, torch.Tensor) \
            and grad_x.shape == g.shape and grad_y.shape == g.shape \
            and bool(torch.allclose(grad_x.detach(), alpha * g)) and bool(torch.allclose(grad_y.detach(), g)):
        c.fail("swapped-order",
               f"{what}: the gradients of x and y are swapped. backward returns them in the order of forward's "
               "inputs: the gradient of x, then that of y (alpha times grad_output), then None for alpha.")
    ones = torch.ones_like(g)
    if isinstance(grad_x, torch.Tensor) and isinstance(grad_y, torch.Tensor) \
            and grad_x.shape == g.shape and grad_y.shape == g.shape \
            and bool(torch.allclose(grad_x.detach(), ones)) and bool(torch.allclose(grad_y.detach(), alpha * ones)):
        c.fail("ignores-grad-output",
               f"{what}: backward ignores grad_output: it returned the local derivatives 1 and alpha. It receives "
               "dLoss/dout and must return grad_x = grad_output and grad_y = alpha * grad_output.")
    if gx_ok and isinstance(grad_y, torch.Tensor) and grad_y.shape == g.shape \
            and bool(torch.allclose(grad_y.detach(), g)):
        c.fail("grad-y-not-scaled",
               f"{what}: the gradient of y is grad_output, but it must be scaled by alpha: d(x + alpha*y)/dy = "
               "alpha, so grad_y = alpha * grad_output.")
    c.require_close(grad_x, g, f"{what}: the gradient of x", "wrong-grad-x",
                    "d(x + alpha*y)/dx = 1, so grad_x = grad_output.", rtol=rtol, atol=atol)
    c.require_close(grad_y, alpha * g, f"{what}: the gradient of y", "wrong-grad-y",
                    "d(x + alpha*y)/dy = alpha, so grad_y = alpha * grad_output.", rtol=rtol, atol=atol)


def values(ScaledAdd, cases=VALUES_CASES) -> None:
    """Values, the node, and both gradients on small examples (grad_output not all ones)."""
    c.require_function(ScaledAdd, NAME)
    c.require_self_contained(ScaledAdd, NAME)
    def one_case(x_values, y_values, alpha, g_values) -> None:
        x = torch.tensor(x_values, dtype=torch.float64, requires_grad=True)
        y = torch.tensor(y_values, dtype=torch.float64, requires_grad=True)
        what = f"{NAME}.apply(x, y, {alpha})"
        g = torch.tensor(g_values, dtype=torch.float64)
        try:
            with c.explained(what, RULES):
                out = c.call(ScaledAdd.apply, x, y, alpha, what=f"{NAME}.forward", names=INPUTS)
        except c.Mistake as refused:
            if refused.code != "saved-a-float":
                raise
            _values_called_directly(ScaledAdd, x, y, alpha, g, what)
            return
        c.require_close(out, x.detach() + alpha * y.detach(), what, "wrong-forward",
                        "forward should return x + alpha * y.")
        c.require_own_node(out, ScaledAdd, NAME)
        _through_a_sum(ScaledAdd, x, y, alpha, what)
        grad_x, grad_y = _gradients(ScaledAdd, out, (x, y, alpha), g, what)
        _check_pair(grad_x, grad_y, g, alpha, what)
    c.each(cases, lambda case: one_case(*case))


def _through_a_sum(ScaledAdd, x, y, alpha, what) -> None:
    """backward through .sum(), as losses are made: it must not write into grad_output (one number broadcast)."""
    leaves = behaviour.fresh((x, y))
    try:
        with c.explained(what, RULES):
            out = c.call(ScaledAdd.apply, *leaves, alpha, what=f"{NAME}.forward", names=INPUTS)
            c.backward_grads(out.sum(), list(leaves), what=f"{NAME}.backward", names=INPUTS)
    except c.Mistake as failed:
        if failed.code == "inplace-grad-output":
            raise


def _values_called_directly(ScaledAdd, x, y, alpha, g, what) -> None:
    """Where autograd refuses forward's save_for_backward of the float alpha (the alpha test's rule): forward's
    value and backward's gradients, both called directly on a ctx that keeps what forward saved."""
    ctx, out = _forward_on_ctx(ScaledAdd, (True, True, False), x, y, alpha, what)
    c.require_close(out, x.detach() + alpha * y.detach(), what, "wrong-forward", "forward should return x + alpha * y.")
    with c.explained(what, RULES):
        returned = c.call(ScaledAdd.backward, ctx, g, what=f"{NAME}.backward", names=INPUTS)
    _check_pair(*_places(returned), g, alpha, what)


# What autograd refuses in backward's return for alpha's place (the count of values, a list, a gradient for the float):
# the none_for_alpha test's rule. There the derivative's tests judge what backward returned for x and y, by its node.
_ALPHA_PLACE_REFUSED = ("wrong-arity", "grad-for-float", "returns-a-list", "missing-none")


def _gradients(ScaledAdd, out, inputs: tuple, g, what: str) -> tuple:
    """(grad_x, grad_y) of `out` = ScaledAdd.apply(*inputs) for grad_output g, through autograd; where autograd refuses
    alpha's place in backward's return, what backward returned for x and y with autograd's own node as its ctx."""
    try:
        with c.explained(what, RULES):
            return tuple(c.backward_grads(out, list(inputs[:2]), g, what=f"{NAME}.backward", names=INPUTS))
    except c.Mistake as refused:
        if refused.code not in _ALPHA_PLACE_REFUSED:
            raise
    return _places(behaviour.backward_by_its_node(ScaledAdd, behaviour.fresh(inputs), g, names=INPUTS, rules=RULES,
                                                  what=_BY_NODE))


def _places(returned) -> tuple:
    """What backward returned in x's and y's places (None for a place it left out or filled with a non-tensor)."""
    values = tuple(returned) if isinstance(returned, (tuple, list)) else (returned,)
    values = values + (None, None)
    return tuple(v if isinstance(v, torch.Tensor) else None for v in values[:2])


def gradcheck(ScaledAdd, cases=GRADCHECK_CASES[:1]) -> None:
    """float64 finite differences, one case per (shape, seed, alpha) (alpha held fixed by a lambda)."""
    c.require_function(ScaledAdd, NAME)
    def one_case(shape, seed, alpha) -> None:
        x, y = _tensors(shape, seed)
        what = f"{NAME} on shape {shape} with alpha = {alpha}"
        try:
            with c.explained(what, RULES):
                c.gradcheck(lambda a, b, alpha=alpha: ScaledAdd.apply(a, b, alpha), (x, y), what, names=INPUTS[:2],
                            hint="backward must return (grad_output, alpha * grad_output, None).",
                            reference=lambda a, b, alpha=alpha: a + alpha * b)
        except c.Mistake as refused:
            if refused.code == "saved-a-float":   # autograd refuses the saved float: the alpha test's rule
                _values_called_directly(ScaledAdd, x, y, alpha, _grad_output(shape, seed), what)
                return
            if refused.code not in _ALPHA_PLACE_REFUSED:
                raise
            # autograd refuses alpha's place (none_for_alpha's rule): the gradients backward returned, by its node
            g = _grad_output(shape, seed)
            grad_x, grad_y = _places(behaviour.backward_by_its_node(ScaledAdd, (x, y, alpha), g, names=INPUTS,
                                                                    rules=RULES, what=_BY_NODE))
            _check_pair(grad_x, grad_y, g, alpha, what)
    c.each(cases, lambda case: one_case(*case))


@c.inputs_judged_elsewhere()
def none_for_alpha(ScaledAdd, cases=NONE_CASES[:1]) -> None:
    """backward returns exactly three values, the last None, both directly and with autograd's own node as its ctx
    (what it returns for x and y is the other tests' rule)."""
    c.require_function(ScaledAdd, NAME)
    for shape, seed in cases:
        x, y = _tensors(shape, seed)
        g = _grad_output(shape, seed)
        _direct_backward(ScaledAdd, (True, True, False), x, y, -1.25, g,
                         f"{NAME}.backward with a ctx whose needs_input_grad is (True, True, False)")
        real = _by_its_node(ScaledAdd, (x, y, -1.25), g.clone(), what=_BY_NODE)
        if real is None:
            continue  # no node of its own: the values test says so (or the alpha test, a float saved)
        lead = (f"Called directly, your backward returned three values, the last None; but with the node autograd "
                f"made for {NAME}.apply(x, y, alpha) as its ctx, backward returned")
        if len(real) != 3:
            c.fail("wrong-arity", f"{lead} {len(real)} value(s): return {_RETURN}.")
        if real[2] is not None:
            c.fail("grad-for-float", f"{lead} a {behaviour.type_name(real[2])} for input 3 (alpha), but alpha is a "
                                     "Python float: return None for the float alpha, after the gradients of x and y.")


@c.inputs_judged_elsewhere()
def needs_input_grad(ScaledAdd, cases=NEEDS_CASES[:1]) -> None:
    """A crafted ctx says which inputs need a gradient; the others must get None (work skipped).

    Through the engine this mistake is invisible (autograd drops a gradient for an input that does not
    require grad), so backward is called directly: with a stand-in ctx, and with the node autograd made for
    ScaledAdd.apply on inputs of which only one requires grad (`behaviour.backward_by_its_node`, a ctx no answer
    can tell from real use). Both must pass. Only which places hold a gradient is judged here: their values, their
    order and alpha's place are the other tests' rules.
    """
    c.require_function(ScaledAdd, NAME)
    alpha = -0.75
    for shape, seed in cases:
        x, y = _tensors(shape, seed)
        g = _grad_output(shape, seed)
        for needs, other in (((True, False, False), 1), ((False, True, False), 0)):
            what = f"{NAME}.backward with ctx.needs_input_grad = {needs}"
            ctx, _ = _forward_on_ctx(ScaledAdd, needs, x, y, alpha, what)
            with c.explained(what, RULES):
                returned = c.call(lambda ctx: ScaledAdd.backward(ctx, g.clone()), ctx, what=f"{NAME}.backward",
                                  names=INPUTS)
            _needs_verdict(_places_named(returned), other, alpha, g, what)
            inputs = (x.detach().clone().requires_grad_(needs[0]), y.detach().clone().requires_grad_(needs[1]), alpha)
            real = _by_its_node(ScaledAdd, inputs, g.clone(), what=_BY_NODE)
            if real is None:
                continue  # no node of its own: the values test says so (or the alpha test, a float saved)
            lead = (f"Called directly, your backward returned what it should; but with the node autograd made for "
                    f"{NAME}.apply(x, y, alpha) as its ctx, {INPUTS[1 - other]} alone requiring grad")
            _needs_verdict(_places_named(real), other, alpha, g, lead)


def _places_named(returned) -> tuple:
    """What backward returned in x's and y's places, anything but None kept (a place left out is None)."""
    values = tuple(returned) if isinstance(returned, (tuple, list)) else (returned,)
    return (values + (None, None))[:2]


def _needs_verdict(grads: tuple, other: int, alpha: float, g, what: str) -> None:
    """What backward returned in x's and y's places when only input `1 - other` needs a gradient: one gradient, not
    in the place of the input that needs none (unless it is the needed input's gradient put in the wrong place:
    the order is the values test's rule)."""
    kept = 1 - other
    if grads[other] is not None and grads[kept] is not None:
        name = INPUTS[other]
        c.fail("ignores-needs-input-grad",
               f"{what}: backward returned a {behaviour.type_name(grads[other])} for {name}, whose "
               f"ctx.needs_input_grad entry is False. Check ctx.needs_input_grad[{other}] and return "
               f"None for {name} (and skip computing its gradient).")
    if grads[other] is None and grads[kept] is None:
        c.fail("missing-gradient",
               f"{what}: backward returned None for {INPUTS[kept]}, which needs a gradient "
               f"(ctx.needs_input_grad[{kept}] is True).")
    if grads[other] is not None:
        wanted = g if kept == 0 else alpha * g
        moved = isinstance(grads[other], torch.Tensor) and grads[other].shape == g.shape \
            and bool(torch.allclose(grads[other].detach(), wanted, rtol=1e-7, atol=1e-7))
        if not moved:
            c.fail("ignores-needs-input-grad",
                   f"{what}: backward returned None for {INPUTS[kept]}, which needs a gradient, and a "
                   f"{behaviour.type_name(grads[other])} for {INPUTS[other]}, whose ctx.needs_input_grad entry is "
                   "False: compute the gradient of input i when ctx.needs_input_grad[i] is True, and only then.")


@c.inputs_judged_elsewhere()
def alpha_scaling(ScaledAdd, cases=ALPHA_CASES[:1]) -> None:
    """grad_y is alpha * grad_output for each call's own alpha, exactly (alpha kept as a float)."""
    c.require_function(ScaledAdd, NAME)
    for shape, seed in cases:
        _alpha_scaling(ScaledAdd, shape, seed)


def _alpha_scaling(ScaledAdd, shape, seed: int) -> None:
    """What alpha's place in the gradient of y is, judged against the learner's own backward: the same call's
    gradient of y when another call with another alpha came between forward and backward (each call's own alpha),
    and alpha not rounded to float32. Whether backward scales by alpha at all is the values test's rule."""
    alphas = (1.0 / 3.0, -7.0 / 3.0)
    calls = []
    for i, alpha in enumerate(alphas):
        x, y = _tensors(shape, seed + i)
        what = f"{NAME}.apply(x, y, {alpha:.4g})"
        with c.explained(what, RULES):
            out = c.call(ScaledAdd.apply, x, y, alpha, what=f"{NAME}.forward", names=INPUTS)
        expected = x.detach() + alpha * y.detach()
        if _rounded(out, expected) and not c.float32_rounded(out):   # all of it in float32: the values test's
            c.fail("wrong-forward", f"{what} is x + alpha * y only up to float32 rounding: use alpha, the Python float "
                                    "itself (torch.tensor(alpha) would round it to float32).")
        calls.append((x, y, alpha))
    g = _grad_output(shape, seed)
    what = f"{NAME}.apply(x, y, {alphas[0]:.4g})"
    alone = behaviour.backward_by_its_node(ScaledAdd, behaviour.fresh(calls[0]), g.clone(), names=INPUTS, rules=RULES,
                                           what=_BY_NODE)
    between = behaviour.backward_by_its_node(ScaledAdd, behaviour.fresh(calls[0]), g.clone(), names=INPUTS, rules=RULES,
                                             what=_BY_NODE, then=(behaviour.fresh(calls[1]),))
    if alone is None or between is None:
        return  # no node of its own: the values test says so
    grad_y, grad_y_between = _places_named(alone)[1], _places_named(between)[1]
    if not isinstance(grad_y, torch.Tensor):
        c.fail("missing-gradient", f"{what}: backward returned {behaviour.type_name(grad_y)} for y, which requires "
                                   "grad: its gradient is alpha * grad_output.")
    if not isinstance(grad_y_between, torch.Tensor) or grad_y_between.shape != grad_y.shape \
            or not bool(torch.allclose(grad_y_between, grad_y, rtol=1e-12, atol=1e-14)):
        c.fail("alpha-shared-state",
               "two calls with different alphas, then the first call's backward: its gradient of y changed with the "
               "second call's alpha. Keep alpha on ctx (`ctx.alpha = alpha`), not on the class or a global: "
               "ctx is created anew for every call.")
    if _rounded(grad_y, alphas[0] * g):
        c.fail("alpha-rounded",
               f"{what}: the gradient of y is alpha * grad_output only up to float32 rounding: alpha was "
               "turned into a float32 tensor (torch.tensor(alpha) is float32). Keep alpha as the Python "
               "float: `ctx.alpha = alpha`.")


def _rounded(got, expected) -> bool:
    """Whether `got` is `expected` up to float32 rounding only (close, not exact)."""
    return isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype == expected.dtype \
        and bool(torch.allclose(got.detach(), expected, rtol=1e-6, atol=1e-6)) \
        and not bool(torch.allclose(got.detach(), expected, rtol=1e-12, atol=1e-14))
