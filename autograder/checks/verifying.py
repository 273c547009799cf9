"""Checks for notebook 05 (verifying a backward). `numerical_grad(f, x, eps=1e-6)`: the central-difference estimate
of the gradient of a scalar-valued `f` at `x`, with x's shape and dtype, leaving `x` untouched. `Tanh`:
`Tanh.apply(x)` returns tanh(x), saves its output, and its backward is itself differentiable (second derivatives
through `create_graph=True` and `gradgradcheck` are right)."""

import torch

from autograder.checks import common as c, raw_errors
from autograder.checks.explain import Rule, explained, literal
from autograder.checks.saving import forward_with_fake_ctx


# The breadth of each check is its `cases=`: the default is what the visible test runs, the tables below what
# the hidden tests run. A case is a seed, a dtype name or a point, as each check says.
GENERAL_CASES, GENERAL_TABLE = (0,), (0, 1, 2)
CENTRAL_CASES, CENTRAL_TABLE = (0,), (50, 51)
UNTOUCHED_CASES, UNTOUCHED_TABLE = (0,), (60, 70)
DTYPE_CASES, DTYPE_TABLE = ("float32",), ("float32", "0-d")
TANH_GRADCHECK_CASES, TANH_GRADCHECK_TABLE = (0,), (0, 1, 2)
GRADGRAD_CASES, GRADGRAD_TABLE = (0,), (0, 1, 2)
SAVES_CASES, SAVES_TABLE = (0,), (80, 90)
EXTREME_CASES, EXTREME_TABLE = (-40.0, 0.0, 40.0), (-1000.0, -40.0, -20.0, 0.0, 20.0, 40.0, 1000.0)

# ------------------------------------------------------------------------------------------ numerical_grad

NG = "numerical_grad"


def _require_callable(fn, name):
    if fn is None:
        c.fail("not-defined", f"`{name}` is not defined: run (or write) its answer cell.")
    if not callable(fn):
        c.fail("not-callable", f"`{name}` must be a function, got {type(fn).__name__}.")


def _numgrad(numerical_grad, f, x, *eps):
    """The estimate as numbers in x's layout: its shape (for as many elements as x has) and dtype are numgrad_dtype's
    rule, not a values test's; so is whether it changes x (numgrad_untouched's): it gets a copy of x."""
    result = c.call(lambda: numerical_grad(f, x.clone(), *eps), what=NG)
    if not isinstance(result, torch.Tensor):
        c.fail("not-a-tensor", f"{NG} should return a tensor with x's shape, got {type(result).__name__}.")
    if result.numel() != x.numel():
        c.fail("wrong-shape", f"{NG}(f, x) for x of shape {tuple(x.shape)} returned {result.numel()} values, of shape "
                              f"{tuple(result.shape)}: one estimate per element of x, in x's shape.")
    return result.detach().reshape(x.shape).to(x.dtype)


def _autograd_grad(f, x):
    leaf = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(leaf), leaf)
    return g


def _cubic(t):
    return (t ** 3).sum()


def _coupled(t):  # every element's derivative depends on all the others
    return (torch.sin(t) * t.sum()).sum() + 0.5 * (t * t).sum()


def _diagnose(result, expected, what, eps):
    """A plain-words reason for a wrong estimate, recognising the usual slips."""
    if bool(torch.allclose(result, 2 * expected, rtol=1e-4, atol=1e-6)) and bool((expected.abs() > 1e-3).any()):
        c.fail("divides-by-eps", f"{what} is twice the true gradient: the central difference divides by 2 * eps, "
                                 "because f(x + eps) and f(x - eps) are 2 * eps apart.")
    if bool(torch.allclose(result, expected / 2, rtol=1e-4, atol=1e-6)) and bool((expected.abs() > 1e-3).any()):
        c.fail("half-gradient", f"{what} is half the true gradient: divide the difference by 2 * eps, not 4 * eps.")
    worst = (result - expected).abs().max().item()
    c.fail("wrong-estimate", f"{what} is wrong (largest error {worst:.3g}, with eps = {eps:g}). Estimate each "
                             "element i as (f(x + eps*e_i) - f(x - eps*e_i)) / (2 * eps), where e_i is 1 at "
                             "position i and 0 elsewhere.")


# Any finite difference with the default step (1e-6) is this close to the gradient, a one-sided one included: whether
# the difference is central is numgrad_central's rule, judged by how the error shrinks with eps.
VALUES_RTOL, VALUES_ATOL = 1e-5, 1e-5


def numgrad_values(numerical_grad) -> None:
    """Visible: the gradient of sum(x**3) at three points is 3 x**2."""
    _require_callable(numerical_grad, NG)
    c.require_self_contained(numerical_grad, NG)
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64)
    result = _numgrad(numerical_grad, _cubic, x)
    expected = 3 * x ** 2
    if not bool(torch.allclose(result, expected, rtol=VALUES_RTOL, atol=VALUES_ATOL)):
        _diagnose(result, expected, f"{NG}(lambda t: (t ** 3).sum(), x)", 1e-6)


def numgrad_general(numerical_grad, cases=GENERAL_CASES) -> None:
    """A function that couples all elements, over several shapes, for each seed of `cases`, against autograd."""
    _require_callable(numerical_grad, NG)
    def one_case(seed) -> None:
        for shape in [(), (4,), (2, 3), (2, 3, 2)]:
            x = c.randn(*shape, seed=seed, requires_grad=False)
            result = _numgrad(numerical_grad, _coupled, x)
            expected = _autograd_grad(_coupled, x)
            if not bool(torch.allclose(result, expected, rtol=VALUES_RTOL, atol=VALUES_ATOL)):
                _diagnose(result, expected, f"{NG} on a shape-{tuple(shape)} input", 1e-6)
    c.each(cases, one_case)


def numgrad_central(numerical_grad, cases=CENTRAL_CASES) -> None:
    """The estimate's error shrinks like eps**2 (a central difference), judged on the answer's own estimates of the
    gradient of sum(x**3) at eps = 4e-2, 2e-2 and 1e-2, one x per seed of `cases`: a central difference is off by
    exactly eps**2, so halving eps takes 4 times less off each time; a one-sided one is off by about 3 x eps (2 times
    less); one that ignores `eps` does not change. A ratio, so a wrong scale or direction (the values rule) cancels."""
    _require_callable(numerical_grad, NG)
    c.each(cases, lambda seed: _numgrad_central(numerical_grad, seed))


def _numgrad_central(numerical_grad, seed: int) -> None:
    x = c.randn(5, seed=seed, requires_grad=False, away_from=(0.0,), margin=0.3)
    coarse, middle, fine = (_numgrad(numerical_grad, _cubic, x, eps) for eps in (4e-2, 2e-2, 1e-2))
    if bool(torch.allclose(coarse, fine, rtol=0, atol=1e-9)):
        c.fail("ignores-eps", "your estimate does not change with eps (tried 4e-2, 2e-2 and 1e-2): use the eps "
                              "argument the caller passes.")
    if bool(torch.allclose(coarse, 4 * fine, rtol=0.05, atol=0)) and bool((fine.abs() > 1e-6).all()):
        c.fail("ignores-eps", "your estimate grows in proportion to eps (tried 4e-2, 2e-2 and 1e-2): the difference "
                              "is divided by a fixed number instead of 2 * eps, with the eps the caller passes.")
    ratio = (coarse - middle) / (middle - fine)
    if bool(((ratio - 4).abs() < 0.5).all()):
        return
    if bool(((ratio - 2).abs() < 0.5).all()):
        c.fail("one-sided-difference",
               "your estimate is a one-sided difference (f(x + eps) - f(x)) / eps, whose error grows like eps. "
               "Use the central difference, one step of eps to each side of x divided by 2 * eps: its error grows like "
               "eps**2.")
    c.fail("wrong-estimate", "the error of your estimate does not shrink like eps**2 when eps is halved (tried 4e-2, "
                             "2e-2 and 1e-2): estimate each element i as the central difference (f(x + eps*e_i) - "
                             "f(x - eps*e_i)) / (2 * eps).")


def numgrad_untouched(numerical_grad, cases=UNTOUCHED_CASES) -> None:
    """x is left exactly as it was (values and version counter), also when it requires grad; one x per seed of
    `cases`."""
    _require_callable(numerical_grad, NG)
    c.each(cases, lambda seed: _numgrad_untouched(numerical_grad, seed))


UNTOUCHED_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("modifies-input", error="leaf-in-place", message=
         "{what} changed x in place, which autograd forbids for a leaf that requires grad. Perturb a copy: "
         "x.detach().clone(), or build x + eps * e_i.", types=(RuntimeError,)),
)


def _numgrad_untouched(numerical_grad, seed: int) -> None:
    leaf = c.randn(3, seed=seed)  # a leaf that requires grad, as in ordinary use
    leaf_before = leaf.detach().clone()
    with explained(NG, UNTOUCHED_RULES):
        result = numerical_grad(_cubic, leaf)
    if leaf._version != 0 or not torch.equal(leaf.detach(), leaf_before):
        how = f"its version counter is now {leaf._version}" if leaf._version else "through .data: its values differ"
        c.fail("modifies-input", f"{NG} changed x in place ({how}). "
                                 "Work on a copy (x.detach().clone()) or build new tensors x + eps * e_i.")
    x = c.randn(2, 3, seed=seed + 1, requires_grad=False)
    before = x.clone()
    c.call(numerical_grad, _coupled, x, what=NG)
    if x._version != 0 or not torch.equal(x, before):
        c.fail("modifies-input",
               f"{NG} changed x in place (version counter {x._version}"
               f"{'' if torch.equal(x, before) else ', and the values differ afterwards'}): even restoring "
               "x[i] after each step leaves rounding traces and bumps the version. Work on a copy.")
    del result


def numgrad_dtype(numerical_grad, cases=DTYPE_CASES) -> None:
    """The estimate has x's dtype and shape (float32 in, float32 out; a 0-d x gives a 0-d result). Its values are the
    other tests' rules."""
    _require_callable(numerical_grad, NG)
    inputs = []
    if "float32" in cases:
        inputs.append(torch.tensor([[0.3, -1.2], [2.0, 0.7]]))
    if "0-d" in cases:
        inputs.append(torch.tensor(0.8, dtype=torch.float64))
    for x in inputs:
        result = c.call(lambda: numerical_grad(_sin_sum, x.clone()), what=NG)  # a copy: see _numgrad
        if not isinstance(result, torch.Tensor):
            c.fail("not-a-tensor", f"{NG} should return a tensor with x's shape, got {type(result).__name__}.")
        c.require_shape(result, x.shape, f"{NG}(f, x) for x of shape {tuple(x.shape)}", code="wrong-shape")
        if result.dtype != x.dtype:
            c.fail("wrong-dtype", f"{NG} returned dtype {result.dtype} for an x of dtype {x.dtype}: return the "
                                  "estimate in x's dtype (torch.tensor(list_of_floats) gives float32; build the "
                                  "result with torch.zeros_like(x) or pass dtype=x.dtype).")


def _sin_sum(t):
    return torch.sin(t).sum()


# ------------------------------------------------------------------------------------------------- Tanh

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
