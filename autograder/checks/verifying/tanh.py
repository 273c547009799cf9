"""Checks for notebook 05's `Tanh` (see `verifying`): `Tanh.apply(x)` returns tanh(x), saves its output, and its
backward is itself differentiable (second derivatives through `create_graph=True` and `gradgradcheck` are right)."""

import torch

from autograder.checks import common as c, raw_errors
from autograder.checks.explain import Rule, explained, literal
from autograder.checks.saving import forward_with_fake_ctx


# The breadth of each check is its `cases=`: the default is what the visible test runs, the tables below what
# the hidden tests run. A case is a seed or a point, as each check says.
TANH_GRADCHECK_CASES, TANH_GRADCHECK_TABLE = (0,), (0, 1, 2)
GRADGRAD_CASES, GRADGRAD_TABLE = (0,), (0, 1, 2)
SAVES_CASES, SAVES_TABLE = (0,), (80, 90)
EXTREME_CASES, EXTREME_TABLE = (-40.0, 0.0, 40.0), (-1000.0, -40.0, -20.0, 0.0, 20.0, 40.0, 1000.0)

NAME = "Tanh"
SHAPES = [(), (4,), (2, 3), (2, 3, 4)]
_SECOND_HINT = ("backward must compute the gradient with differentiable torch operations on the tensors saved "
                "with ctx.save_for_backward (the output y): no .detach(), .item(), .numpy(), torch.no_grad() or "
                "@once_differentiable, and no intermediate computed in forward (forward runs without recording, "
                "so a saved intermediate is a constant for the second derivative).")


def _tanh(x):
    return torch.tanh(x.detach())


# A crash of the learner's code that is not a RuntimeError (autograd's own errors have rules of their own).
CRASH_RULES = (
    Rule("crashed", None, "{what}: your code raised {kind}: {line}. Check 0-d inputs and that backward returns a "
         "tensor built with torch operations.", types=(TypeError, ValueError, LookupError, AttributeError,
                                                        ArithmeticError)),
)


def guarded(check, *args, what: str, **kwargs):
    """Run a common check; a crash of the learner's code that is not a RuntimeError becomes plain feedback."""
    with explained(what, CRASH_RULES):
        return check(*args, what=what, **kwargs)


def tanh_values(Tanh) -> None:
    """Visible: values, the gradient on a small example, and Tanh's own graph node."""
    c.require_function(Tanh, NAME)
    c.require_self_contained(Tanh, NAME)
    x = torch.tensor([-3.0, -0.5, 0.0, 0.7, 2.0], dtype=torch.float64, requires_grad=True)
    y = c.call(Tanh.apply, x, what="Tanh.forward")
    c.require_close(y, _tanh(x), "Tanh.apply(x)", "wrong-forward", "forward should return torch.tanh(x).")
    c.require_own_node(y, Tanh, NAME)
    # y.sum(): grad_output is one number broadcast, which backward must not write into (the others give their own)
    (grad,) = c.backward_grads(y.sum(), [x], what="Tanh.backward")
    c.require_close(grad, 1 - _tanh(x) ** 2, "the gradient of Tanh.apply(x).sum()", "wrong-derivative",
                    "d tanh(x)/dx = 1 - y * y, times grad_output, in x's dtype throughout.", rtol=1e-10, atol=1e-12)


def tanh_gradcheck(Tanh, cases=TANH_GRADCHECK_CASES) -> None:
    """float64 gradcheck over shapes for each seed of `cases`, grad_output scaling, and float32 in -> float32
    out."""
    c.require_function(Tanh, NAME)
    for seed in cases:
        for shape in SHAPES:
            x = c.randn(*shape, seed=seed, scale=1.5)
            guarded(c.gradcheck, Tanh.apply, (x,), what=f"Tanh on shape {shape}",
                    hint="the derivative is 1 - y * y, with y the saved output, times grad_output.",
                    reference=torch.tanh)
    x = c.randn(3, 4, seed=70)
    grad_output = c.randn(3, 4, seed=71, requires_grad=False)
    y = c.call(Tanh.apply, x, what="Tanh.forward")
    (grad,) = c.backward_grads(y, [x], grad_output, what="Tanh.backward")
    c.require_close(grad, grad_output * (1 - _tanh(x) ** 2), "the gradient for a random grad_output",
                    "ignores-grad-output", "multiply the local derivative by grad_output, element by element.")
    x32 = c.randn(6, seed=72, dtype=torch.float32)
    y32 = c.call(Tanh.apply, x32, what="Tanh.forward")
    c.require_close(y32, _tanh(x32), "Tanh.apply(x) for a float32 x", "wrong-forward", rtol=1e-5, atol=1e-6)
    (g32,) = c.backward_grads(y32, [x32], what="Tanh.backward")
    c.require_close(g32, 1 - _tanh(x32) ** 2, "the float32 gradient", "wrong-derivative", rtol=1e-5, atol=1e-6)


FIRST_GRAPH_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("backward-not-differentiable", None, "with create_graph=True, {what} raised: {line}. "
         + literal(_SECOND_HINT), types=(RuntimeError,)),
)
SECOND_RULES = (
    Rule("backward-not-differentiable", None, "differentiating {what} again failed: {line}. " + literal(_SECOND_HINT),
         types=(RuntimeError,)),
)


@c.inputs_judged_elsewhere()
def tanh_second_derivative(Tanh) -> None:
    """Visible: with create_graph=True the gradient is itself differentiable, and the second derivative autograd takes
    through backward is the derivative of the answer's own gradient (for tanh's, d2 tanh/dx2 = -2 y (1 - y**2))."""
    c.require_function(Tanh, NAME)
    _require_second_derivative(Tanh, torch.tensor([-2.0, -0.6, 0.1, 0.9, 1.7], dtype=torch.float64))


def _gradient_of_sum(Tanh, x: torch.Tensor) -> torch.Tensor:
    leaf = x.detach().clone().requires_grad_(True)
    (grad,) = c.backward_grads(y := c.call(Tanh.apply, leaf, what="Tanh.forward"), [leaf], torch.ones_like(y),
                               what="Tanh.backward")
    return grad.detach().to(x.dtype)


def _require_second_derivative(Tanh, x: torch.Tensor, step: float = 1e-3) -> None:
    """backward is differentiable, and autograd's derivative of sum(gradient) is what central differences of the
    answer's own gradient give, input by input. Whether that gradient is tanh's is the values rule, and so is its
    dtype (the tolerances allow a float32 computation). Where it is not tanh's, autograd differentiates the saved
    output with the answer's own backward: that chain is the answer's too."""
    x, ran = x.detach().clone().requires_grad_(True), c.judged_elsewhere.RUN_AGAIN[0]
    y = c.call(Tanh.apply, x, what="Tanh.forward")
    # a forward that changed x in place (the values rule) saved y with x's history: the chain lacks 1 - y**2
    lacks = (1 - _tanh(x) ** 2) if c.judged_elsewhere.RUN_AGAIN[0] > ran else 1
    with explained("Tanh.backward", FIRST_GRAPH_RULES):
        (grad,) = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
    if not grad.requires_grad:
        c.fail("backward-not-differentiable",
               "with create_graph=True the gradient returned by Tanh.backward is not connected to x, so no second "
               f"derivative can be taken. {_SECOND_HINT}")
    with explained("Tanh's gradient", SECOND_RULES):
        (second,) = torch.autograd.grad(grad.sum(), x, allow_unused=True)
    if second is None:
        c.fail("backward-not-differentiable",
               f"the gradient returned by Tanh.backward does not depend on x for autograd. {_SECOND_HINT}")
    slope = torch.zeros_like(x.detach()).reshape(-1)
    for i in range(x.numel()):
        nudge = torch.zeros_like(slope)
        nudge[i] = step
        nudge = nudge.reshape(x.shape)
        slope[i] = (_gradient_of_sum(Tanh, x + nudge).sum() - _gradient_of_sum(Tanh, x - nudge).sum()) / (2 * step)
    slope = slope.reshape(x.shape)
    through_output = slope * grad.detach().to(x.dtype) / (1 - _tanh(x) ** 2)
    second = second.detach().to(x.dtype)
    if any(bool(torch.allclose(second, want, rtol=1e-3, atol=1e-4)) for want in (slope / lacks, through_output)):
        return
    c.require_close(second, slope, "the second derivative of Tanh (autograd through your backward, against how your "
                    "own gradient changes with x)", "wrong-second-derivative",
                    f"for tanh, d2 tanh/dx2 = -2 y (1 - y**2). {_SECOND_HINT}", rtol=1e-3, atol=1e-4)


@c.inputs_judged_elsewhere()
def tanh_gradgradcheck(Tanh, cases=GRADGRAD_CASES) -> None:
    """gradgradcheck (second derivatives with respect to x and to grad_output) over shapes, for each seed of
    `cases`. An answer whose gradient is not tanh's, or not in x's dtype, or whose forward changes x (the values
    rule), is judged as the visible test judges it: gradgradcheck's float64 finite differences would fail it."""
    c.require_function(Tanh, NAME)
    for seed in cases:
        for shape in [(), (4,), (2, 3)]:
            x, ran = c.randn(*shape, seed=seed + 100, scale=1.5), c.judged_elsewhere.RUN_AGAIN[0]
            with explained(f"Tanh on shape {shape}", CRASH_RULES):
                y = c.call(Tanh.apply, x, what="Tanh.forward")
                own = isinstance(y, torch.Tensor) and y.dtype == x.dtype and c.judged_elsewhere.RUN_AGAIN[0] == ran \
                    and bool(torch.allclose(_gradient_of_sum(Tanh, x), 1 - _tanh(x) ** 2, rtol=1e-10, atol=1e-12))
                if not own:
                    _require_second_derivative(Tanh, x)
                    continue
            guarded(c.gradgradcheck, lambda t: Tanh.apply(t) * 1.0, (x,), what=f"Tanh on shape {shape}",
                    hint=_SECOND_HINT, reference=torch.tanh)  # * 1.0: backward gets a grad_output of its own


@c.inputs_judged_elsewhere()
def tanh_saves_one_guarded_tensor(Tanh, cases=SAVES_CASES) -> None:
    """forward saves exactly its output, and changing the output in place before backward raises; one input per
    seed of `cases`."""
    c.require_function(Tanh, NAME)
    c.each(cases, lambda seed: _tanh_saves_output(Tanh, seed))


def _tanh_saves_output(Tanh, seed: int) -> None:
    x = c.randn(2, 5, seed=seed)
    ctx, y = forward_with_fake_ctx(Tanh, x, name=NAME)
    saved = tuple(ctx.saved_tensors)
    if not saved:
        c.fail("not-saved-for-backward",
               "forward never called ctx.save_for_backward with a tensor: save the output y "
               "(ctx.save_for_backward(y)), not a plain attribute.")
    if any(s is x for s in saved):
        c.fail("saves-input",
               "forward saved the input x. The derivative of tanh is 1 - y**2, a function of the output: "
               "save only the output y (the input can then be freed) and compute the derivative from it.")
    if len(saved) != 1 or saved[0] is not y:
        c.fail("saves-wrong-tensor",
               "forward should save exactly one tensor, the output it returns (not a copy, not y.detach(), "
               "not an intermediate such as 1 - y*y): ctx.save_for_backward(y).")
    leaf = c.randn(6, seed=seed + 1)
    y = c.call(Tanh.apply, leaf * 1.0, what="Tanh.forward")
    try:  # (an input forward changed in place and returned, a view of it: autograd refuses the change itself)
        y.mul_(2.0)
        torch.autograd.grad(y, [leaf], torch.ones_like(y))
    except RuntimeError as error:
        if any(raw_errors.says(error, code) for code in ("inplace-error", "view-changed-in-place")):
            return
        raise
    c.fail("output-change-unnoticed",
           "the output was changed in place before backward and backward did not raise: save the output itself "
           "with ctx.save_for_backward(y) so its version counter is checked.")


@c.inputs_judged_elsewhere()
def tanh_extremes(Tanh, cases=EXTREME_CASES) -> None:
    """Very large |x| gives +-1 and a finite gradient, never inf or NaN, at the points of `cases`: the same gradient
    the answer gives where tanh has just saturated (x = +-20, no exp overflows yet), which is 0 for tanh's
    derivative. Whether the derivative is tanh's is the values rule, and so is the dtype."""
    c.require_function(Tanh, NAME)
    x = torch.tensor(cases, dtype=torch.float64, requires_grad=True)
    y = c.call(Tanh.apply, x, what="Tanh.forward")
    if not bool(torch.isfinite(y.detach()).all()):
        bad = x.detach()[~torch.isfinite(y.detach())].tolist()
        c.fail("overflow", f"Tanh.apply(x) is not finite (inf or NaN) at x = {bad}: a formula built from exp "
                           "overflows for large |x|. Use torch.tanh in forward.")
    c.require_close(y.detach().to(x.dtype), _tanh(x), "Tanh.apply(x) at large |x|", "wrong-forward",
                    "use torch.tanh in forward.", rtol=0, atol=1e-12)
    (grad,) = c.backward_grads(y, [x], what="Tanh.backward")
    if not bool(torch.isfinite(grad).all()):
        c.fail("overflow", "the gradient of Tanh is not finite at large |x|: compute it as 1 - y * y from the saved "
                           "output (a formula such as 1 / cosh(x)**2 built from exp can overflow).")
    saturated = torch.where(x.detach().abs() >= 20, 20 * x.detach().sign(), x.detach())
    c.require_close(grad.detach().to(x.dtype), _gradient_of_sum(Tanh, saturated), "the gradient at large |x|",
                    "overflow", "it should be what it is where tanh has just saturated (x = +-20): 1 - y * y, "
                    "computed from the saved output, does not change further out.", rtol=0, atol=1e-12)
