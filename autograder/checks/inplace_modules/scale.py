"""Checks of ScaleInplace (notebook 12): `ScaleInplace.apply(x, alpha)` multiplies x in place by the float alpha
and returns x itself, marked dirty; backward returns (grad_output * alpha, None) (the contract:
inplace_modules/__init__.py)."""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule, explained
from autograder.checks.inplace_modules.shared import (INPLACE_RULES, dtype_name, grad_through, inputs_with_history,
                                              require_in_place, require_returned, saved_then_changed)


SCALE = "ScaleInplace"
SCALE_SHAPES = [(), (4,), (2, 3), (2, 3, 4)]
SCALE_HINT = "backward returns (grad_output * alpha, None): the scaling's derivative is alpha, times grad_output."

SCALE_RULES = INPLACE_RULES + (
    Rule("grad-for-alpha", mistake="missing-none", types=(RuntimeError,),
         message="{what}: backward returned a gradient for alpha, which is a Python float, not a tensor: return "
                 "None for alpha (one value per input of forward, in order)."),
) + c.ENGINE_RULES

# (shape, alpha, seed, dtype)
SCALE_VALUE_CASES = [((4,), 2.5, 0, torch.float64)]
SCALE_VALUE_TABLE = [(shape, alpha, 10 + k, torch.float64) for k, (shape, alpha) in
                     enumerate(zip(SCALE_SHAPES, (-1.5, 0.25, 3.0, -0.75)))] + [((3, 2), 1.75, 20, torch.float32),
                                                                                       ((3,), 0.1, 21, torch.float64)]


def _scale(ScaleInplace, x, alpha, what):
    """ScaleInplace.apply(x, alpha), which is meant to change x (so not common.call, which forbids that): what it
    returns must hold alpha * x (whether that is x itself is scale_version_counter's rule)."""
    before = x.detach().clone()
    with explained(what, SCALE_RULES):
        y = ScaleInplace.apply(x, alpha)
    require_returned(y, alpha * before, what, "alpha times x")
    return y


def _require_scale_grad(grad, weight, alpha, what) -> None:
    if grad is None:
        c.fail("no-gradient", f"{what}: the input got no gradient: backward must return grad_output * alpha for x.")
    if isinstance(grad, torch.Tensor) and grad.shape == weight.shape:
        right = bool(torch.allclose(grad, alpha * weight))
        if bool(torch.allclose(grad, alpha * torch.ones_like(weight))) and not right:
            c.fail("ignores-grad-output",
                   f"{what}: backward ignores grad_output: it returned alpha everywhere. It receives dLoss/dy and "
                   "must return grad_output * alpha.")
        if bool(torch.allclose(grad, weight)) and not right:
            c.fail("forgets-alpha",
                   f"{what}: backward returned grad_output unchanged: the scaling's derivative is alpha, so return "
                   "grad_output * alpha (keep alpha on ctx: ctx.alpha = alpha).")
    c.require_close(grad, alpha * weight, f"the gradient through {what}", "wrong-derivative", SCALE_HINT,
                    rtol=1e-10, atol=1e-12)


def scale_values(ScaleInplace, cases=SCALE_VALUE_CASES) -> None:
    """x computed from a leaf (a plain copy, and two operations deeper in a graph) is scaled: what the call returns
    holds alpha * x, and the gradient of a loss computed from it afterwards includes the scaling (backward's
    value, and None for alpha). Whether x itself is changed, marked dirty and returned is scale_version_counter's
    rule. Visible: one (4,) float64 case; SCALE_VALUE_TABLE: more shapes, alphas and float32."""
    c.require_function(ScaleInplace, SCALE)
    for shape, alpha, seed, dtype in cases:
        for how, leaf, make_x, local in inputs_with_history(shape, seed, dtype):
            what = f"{SCALE}.apply(x, {alpha}) for {how} of shape {shape} ({dtype_name(dtype)})"
            weight = c.randn(*shape, seed=seed + 100, requires_grad=False, dtype=dtype)
            try:
                y = _scale(ScaleInplace, make_x(), alpha, what)
            except c.Mistake as mistake:
                if mistake.code != "dirty-not-returned":
                    raise
                grad = _scale_by_methods(ScaleInplace, leaf, make_x, alpha, weight, what)
            else:
                grad = grad_through(leaf, y, weight, f"{SCALE}.backward", SCALE_RULES)
                _through_a_sum(ScaleInplace, leaf, make_x, alpha, what)
            _require_scale_grad(grad, weight * local(leaf.detach()), alpha, what)


def _through_a_sum(ScaleInplace, leaf, make_x, alpha, what) -> None:
    """backward through y.sum(), as losses are made: grad_output is then one number broadcast to every element,
    which backward must not write into (it belongs to autograd)."""
    y = _scale(ScaleInplace, make_x(), alpha, what)
    with explained(f"{SCALE}.backward", SCALE_RULES):
        c.backward_grads(y.sum(), [leaf], what=f"{SCALE}.backward")


def _own_backward(ScaleInplace, ctx, grad_output, what):
    """The learner's backward called as autograd calls it (grad mode off): its gradient for x, and None for alpha."""
    with explained(what, SCALE_RULES), torch.no_grad():
        grads = ScaleInplace.backward(ctx, grad_output)
    if not isinstance(grads, (tuple, list)) or len(grads) != 2:
        c.fail("wrong-arity", f"{what} must return two values, one per input of forward: the gradient of x, then None "
                              "for alpha.")
    if grads[1] is not None:
        c.fail("missing-none", f"{what}: backward returned a gradient for alpha, which is a Python float, not a "
                               "tensor: return None for alpha (one value per input of forward, in order).")
    return grads[0]


def _own_forward(ScaleInplace, x, alpha, what):
    """(a stand-in ctx, what forward returned) for forward called directly, as autograd calls it (grad mode off)."""
    ctx = behaviour.stand_in_ctx(SCALE, (x.requires_grad, False))
    with explained(what, SCALE_RULES), torch.no_grad():
        return ctx, ScaleInplace.forward(ctx, x, alpha)


def _scale_by_methods(ScaleInplace, leaf, make_x, alpha, weight, what):
    """Where autograd refuses the call because x was marked dirty but another tensor returned (scale_version_counter's
    rule), forward and backward called directly: what forward returns holds alpha * x, and backward's gradient for
    x, carried to the leaf through the same operations that made x, is the values' rule."""
    x = make_x()
    before = x.detach().clone()
    ctx, y = _own_forward(ScaleInplace, x, alpha, f"{SCALE}.forward(ctx, x, {alpha})")
    require_returned(y, alpha * before, what, "alpha times x")
    grad = _own_backward(ScaleInplace, ctx, weight, f"{SCALE}.backward(ctx, grad_output)")
    if not isinstance(grad, torch.Tensor):
        return None
    return grad_through(leaf, make_x(), grad.detach(), f"{SCALE}.backward", SCALE_RULES)


SCALE_VERSION_CASES = ("saved-by-sin",)
SCALE_VERSION_TABLE = ("saved-by-sin", "changed-after", "no-grad")


def _scale_in_place(ScaleInplace, x, alpha, what) -> None:
    """ScaleInplace.apply(x, alpha) must keep the in-place contract: x itself changed, marked dirty and returned,
    its version counter moved (the new values and the gradient are scale_values' rule, and scale_chain's)."""
    version, before = x._version, x.detach().clone()
    with explained(what, SCALE_RULES):
        y = ScaleInplace.apply(x, alpha)
    require_in_place(y, x, before, version, what, "an in-place multiplication")


def scale_version_counter(ScaleInplace, cases=SCALE_VERSION_CASES) -> None:
    """The in-place contract: x itself is changed, marked dirty and returned, its version counter moved. Visible: x
    saved by an earlier op (sin saves its input), then scaled in place: backward through sin must raise
    autograd's in-place error. SCALE_VERSION_TABLE adds x changed in place by the caller after the call (nothing
    of it was saved, so backward still works and includes both factors) and a tensor without gradient, scaled in
    place and returned itself."""
    c.require_function(ScaleInplace, SCALE)
    for case in cases:
        if case == "saved-by-sin":
            what = f"{SCALE}.apply(x, 2.0) after x.sin()"
            saved_then_changed(lambda x: _scale_in_place(ScaleInplace, x, 2.0, what), what)
        elif case == "changed-after":
            what = f"{SCALE}.apply(x, 3.0), then x.mul_(0.5) by the caller"
            weight = c.randn(2, 3, seed=34, requires_grad=False)
            # The same call left alone, with the caller's factor in grad_output: the gradient's own rule is
            # scale_values', so here only the caller's change must not matter to backward. A backward that fails
            # on the call left alone, an ordinary use, is scale_values' to name.
            leaf2 = c.randn(2, 3, seed=33)
            x2 = leaf2 * 1.0
            with explained(what, SCALE_RULES):
                ScaleInplace.apply(x2, 3.0)
            try:
                alone = grad_through(leaf2, x2, 0.5 * weight, f"{SCALE}.backward", SCALE_RULES)
            except c.Mistake:
                continue
            leaf = c.randn(2, 3, seed=33)
            x = leaf * 1.0
            with explained(what, SCALE_RULES):
                ScaleInplace.apply(x, 3.0)
            x.mul_(0.5)
            grad = grad_through(leaf, x, weight, f"{SCALE}.backward", SCALE_RULES)
            c.require_close(grad, alone, f"the gradient through {what}", "version-counter-missed",
                            "it differs from the same call's gradient without the caller's change: backward must "
                            "not read x, which the caller may change after the call (alpha on ctx is all it needs).",
                            rtol=1e-10, atol=1e-12)
        elif case == "no-grad":
            x = c.randn(2, 3, seed=35, requires_grad=False)
            _scale_in_place(ScaleInplace, x, -0.5, f"{SCALE}.apply(x, -0.5) for x that does not require grad")


SCALE_CHAIN_CASES = ("twice",)
SCALE_CHAIN_TABLE = ("twice",) + tuple(zip(SCALE_SHAPES, ((0.5, -2.0), (-2.0, 1.25), (1.25, 3.0), (3.0, 0.5))))


def scale_chain(ScaleInplace, cases=SCALE_CHAIN_CASES) -> None:
    """Visible: x scaled twice (alphas 2 and -3) before one backward: each call's backward uses its own alpha
    (kept on ctx), so the gradient is what the two calls' own backwards give one after the other (2 * -3 *
    grad_output for a right backward: whether one call's gradient is right is scale_values' rule).
    SCALE_CHAIN_TABLE adds (shape, (alpha, alpha)) pairs."""
    c.require_function(ScaleInplace, SCALE)
    for k, case in enumerate(cases):
        shape, alphas = ((2, 3), (2.0, -3.0)) if case == "twice" else case
        _scale_twice(ScaleInplace, shape, alphas, 40 + 3 * k)


def _scale_once_grad(ScaleInplace, shape, alpha, grad_output, seed, what):
    """The learner's backward of one call on its own: the gradient of (ScaleInplace.apply(x, alpha) * grad_output)
    .sum() with respect to x's leaf."""
    leaf = c.randn(*shape, seed=seed)
    with explained(what, SCALE_RULES):
        y = ScaleInplace.apply(leaf * 1.0, alpha)
    return grad_through(leaf, y, grad_output, f"{SCALE}.backward", SCALE_RULES)


def _scale_twice(ScaleInplace, shape, alphas, seed) -> None:
    first, second = alphas
    what = f"{SCALE}.apply(x, {first}) then {SCALE}.apply(x, {second})"
    try:  # an ordinary call's backward through autograd
        _scale_once_grad(ScaleInplace, shape, first, c.randn(*shape, seed=seed + 1, requires_grad=False), seed + 2,
                         f"{SCALE}.apply(x, {first})")
    except c.Mistake:  # it fails (scale_values' rule): read what backward returns instead
        _scale_twice_by_nodes(ScaleInplace, shape, alphas, seed)
        return
    leaf = c.randn(*shape, seed=seed)
    y = leaf * 1.0
    for alpha in alphas:  # through what each call returns (x itself for a right answer)
        with explained(f"{SCALE}.apply(x, {alpha})", SCALE_RULES):
            y = ScaleInplace.apply(y, alpha)
    weight = c.randn(*shape, seed=seed + 1, requires_grad=False)
    grad = grad_through(leaf, y, weight, f"{SCALE}.apply twice", SCALE_RULES)

    def composed(a, b):  # the learner's own single-call backwards, second call's first
        inner = _scale_once_grad(ScaleInplace, shape, b, weight, seed + 2, f"{SCALE}.apply(x, {b})")
        return _scale_once_grad(ScaleInplace, shape, a, inner, seed + 2, f"{SCALE}.apply(x, {a})")

    expected = composed(first, second)
    close = isinstance(grad, torch.Tensor) and grad.shape == weight.shape
    if close and bool(torch.allclose(grad, expected, rtol=1e-10, atol=1e-12)):
        return
    if close and bool(torch.allclose(grad, composed(second, second), rtol=1e-10, atol=1e-12)):
        c.fail("alpha-shared-state",
               f"x scaled by {first} then by {second} before one backward, and the first call's backward used the "
               "second call's alpha. Keep alpha on ctx (ctx.alpha = alpha), not on the class or a global: ctx is "
               "new for every call.")
    c.require_close(grad, expected, f"the gradient through {what}", "alpha-shared-state",
                    "it differs from what the two calls' backwards give one after the other, each on its own: each "
                    "call's backward must use that call's own alpha (kept on ctx), whatever calls came after it.",
                    rtol=1e-10, atol=1e-12)


def _scale_twice_by_nodes(ScaleInplace, shape, alphas, seed) -> None:
    """scale_chain's property where the learner's backward fails through autograd on an ordinary call (scale_values'
    rule, such as a gradient for alpha): what the first call's backward returns for x, with autograd's own node as
    its ctx, once another call (on another tensor) came between the call and its backward, against what it returns
    with no call between."""
    first, second = alphas
    weight = c.randn(*shape, seed=seed + 1, requires_grad=False)

    def first_gradient(then_second: bool):
        leaf = c.randn(*shape, seed=seed)
        with explained(f"{SCALE}.apply(x, {first})", SCALE_RULES):
            y = ScaleInplace.apply(leaf * 1.0, first)
        if then_second:
            with explained(f"{SCALE}.apply(z, {second})", SCALE_RULES):
                ScaleInplace.apply(c.randn(*shape, seed=seed + 5) * 1.0, second)
        raw = behaviour.raw_backward_of(ScaleInplace, y, leaf, weight)
        return raw[0] if raw else None

    try:
        alone, after = first_gradient(False), first_gradient(True)
    except c.Mistake as mistake:
        if mistake.code != "dirty-not-returned":
            raise
        alone, after = (_first_gradient_by_methods(ScaleInplace, shape, alphas, seed, weight, between)
                        for between in (False, True))
    _require_same_first_gradient(alone, after, first, second)


def _first_gradient_by_methods(ScaleInplace, shape, alphas, seed, weight, then_second: bool):
    """The first call's backward for x, forward and backward called directly on stand-in ctxs (autograd refuses the
    call: x marked dirty but another tensor returned, scale_version_counter's rule), another call between or not."""
    first, second = alphas
    ctx, _ = _own_forward(ScaleInplace, c.randn(*shape, seed=seed) * 1.0, first, f"{SCALE}.forward(ctx, x, {first})")
    if then_second:
        _own_forward(ScaleInplace, c.randn(*shape, seed=seed + 5) * 1.0, second, f"{SCALE}.forward(ctx, z, {second})")
    what = f"{SCALE}.backward(ctx, grad_output)"
    with explained(what, SCALE_RULES), torch.no_grad():
        grads = ScaleInplace.backward(ctx, weight)
    return grads[0] if isinstance(grads, (tuple, list)) and grads else None   # its value is scale_values' rule


def _require_same_first_gradient(alone, after, first, second) -> None:
    if not (isinstance(alone, torch.Tensor) and isinstance(after, torch.Tensor) and alone.shape == after.shape):
        return  # nothing backward returned for x to compare: scale_values names it
    if bool(torch.allclose(after, alone, rtol=1e-10, atol=1e-12)):
        return
    c.fail("alpha-shared-state",
           f"x scaled by {first}, then another tensor scaled by {second} before the first call's backward: that "
           "backward returned another gradient for x than with no call between. Keep alpha on ctx "
           "(ctx.alpha = alpha), not on the class or a global: ctx is new for every call.")
