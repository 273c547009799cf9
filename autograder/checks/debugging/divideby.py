"""Checks for notebook 15's `DivideBy` (see `debugging`): `DivideBy.apply(x, t)` = x / t, for t a Python
number or a 0-d tensor that may be learned. The broken one returns a gradient for t even when t is a number, where
it must return None.
"""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.debugging.kept import OUTPUT, require_grad_output_alone, require_inputs_kept
from autograder.checks.debugging.shared import fmt, symptom_remains


DIVIDE = "DivideBy"
DIVIDE_INPUTS = ("x", "t")
DIVIDE_HINT = ("the gradient of x / t is grad_output divided by t for x, and for a 0-d tensor t minus the sum over "
               "every entry of grad_output times x, divided by t squared.")
# (x's shape, t: a Python float or int, seed)
NUMBER_CASES = (((4,), 2.0, 700), ((2, 3), 0.5, 701), ((3,), 3, 702), ((), -1.5, 703), ((2, 2), 4, 704),
                ((5,), 1, 705))
# (x's shape, t's value, does x require grad, does t, seed): t a 0-d tensor
TENSOR_CASES = (((4,), 2.0, True, True, 710), ((2, 3), 0.5, False, True, 711), ((3,), -1.5, True, False, 712),
                ((), 3.0, False, True, 713), ((2, 2), 1.25, True, True, 714))


def divide_number(DivideBy, cases=NUMBER_CASES[:1]) -> None:
    """t a Python number (a float, and in the table an int too): the value and x's gradient, and no error."""
    c.require_function(DivideBy, DIVIDE)
    c.require_self_contained(DivideBy, DIVIDE)
    def one_case(shape, t, seed) -> None:
        x = c.randn(*shape, seed=seed)
        what = f"{DIVIDE}.apply(x, {t!r}) for x of shape {fmt(x.shape)} (t a Python {type(t).__name__})"
        try:
            out = c.call(DivideBy.apply, x, t, what=what, names=DIVIDE_INPUTS)
        except TypeError as error:   # the crash moved to forward (a number saved with save_for_backward)
            symptom_remains(DIVIDE, f"{what} raises TypeError: {c.first_line(str(error), 120)}")
        c.require_close(out, x.detach() / t, what, "wrong-forward", "forward returns x / t.")
        g = c.randn(*shape, seed=seed + 1, requires_grad=False)
        # a copy of g: a backward that writes into grad_output is the tensor test's rule (debugging/kept.py)
        (grad,) = c.backward_grads(out, [x], g.clone(), what=f"{DIVIDE}.backward, t a Python {type(t).__name__}",
                                   names=DIVIDE_INPUTS)
        if grad is None:
            c.fail("missing-gradient", f"{what}: x requires grad but got none. Return its gradient.")
        c.require_close(grad, g / t, f"the gradient of x ({what})", "wrong-derivative", DIVIDE_HINT)
    with c.precision_elsewhere():   # float32's rounding is the tensor test's rule: one mistake, one test
        c.each(cases, lambda case: one_case(*case))


def divide_tensor(DivideBy, cases=TENSOR_CASES[:1]) -> None:
    """t a 0-d tensor (a learned temperature): the gradient of every input that requires grad (in the table: t alone,
    x alone, both); the point counts once the report's symptom is gone (the broken Function keeps this rule)."""
    c.require_function(DivideBy, DIVIDE)
    def one_case(shape, value, x_grad, t_grad, seed) -> None:
        x = c.randn(*shape, seed=seed, requires_grad=x_grad)
        t = torch.tensor(value, dtype=torch.float64, requires_grad=t_grad)
        needs = [name for name, on in (("x", x_grad), ("t", t_grad)) if on]
        what = (f"{DIVIDE}.apply(x, t) for x of shape {fmt(x.shape)} and a 0-d tensor t, "
                f"{' and '.join(needs)} requiring grad")
        out = c.call(DivideBy.apply, x, t, what=what, names=DIVIDE_INPUTS)
        c.require_float64_kept(out, x.detach() / t.detach(), what, "forward")
        c.require_close(out, x.detach() / t.detach(), what, "wrong-forward", "forward returns x / t.", rtol=1e-10,
                        atol=1e-12)
        g = c.randn(*shape, seed=seed + 1, requires_grad=False)
        inputs = [v for v, on in ((x, x_grad), (t, t_grad)) if on]
        grads = c.backward_grads(out, inputs, g.clone(), what=f"{DIVIDE}.backward, t a tensor", names=DIVIDE_INPUTS)
        expected = {"x": g / t.detach(), "t": -(g * x.detach()).sum() / t.detach() ** 2}
        for name, grad in zip(needs, grads):
            if grad is None:
                c.fail("missing-gradient",
                       f"{what}: {name} requires grad (a temperature that is learned) but got no gradient: "
                       f"backward returned None for it. Return None only where the input cannot have a gradient.")
            c.require_float64_kept(grad, expected[name], f"the gradient of {name} ({what})", "backward")
            c.require_close(grad, expected[name], f"the gradient of {name} ({what})", "wrong-derivative",
                            DIVIDE_HINT, rtol=1e-10, atol=1e-12)
    c.each(cases, lambda case: one_case(*case))
    # what else the broken Function keeps (debugging/kept.py): x kept where the version counter guards it,
    # grad_output left alone
    inputs = lambda seed: [c.randn(4, seed=seed), torch.tensor(1.5, dtype=torch.float64)]
    require_inputs_kept(DivideBy, DIVIDE, inputs(730), {"x": 0, "the output": OUTPUT}, DIVIDE_INPUTS)
    require_grad_output_alone(DivideBy, DIVIDE, lambda: [inputs(731), [c.randn(3, seed=732), 2.0]], DIVIDE_INPUTS)
    divide_symptom_gone(DivideBy)   # the broken Function already keeps this rule: its point stands for the fix


def divide_symptom_gone(DivideBy) -> None:
    """The report's case (t = 2.0, gradients with respect to the input): backward runs."""
    x = c.randn(4, seed=970)
    try:
        out = c.call(DivideBy.apply, x, 2.0, what=f"{DIVIDE}.apply(x, 2.0)", names=DIVIDE_INPUTS)
    except (RuntimeError, TypeError) as error:   # the crash moved to forward: still no saliency map
        symptom_remains(DIVIDE, f"with t = 2.0, a Python number, DivideBy.apply(x, 2.0) now raises "
                                f"{type(error).__name__}: {c.first_line(str(error), 120)}")
    try:
        torch.autograd.grad(out, [x], torch.ones_like(out))
    except RuntimeError:
        symptom_remains(DIVIDE, "with t = 2.0, a Python number, the gradient with respect to x still raises")
