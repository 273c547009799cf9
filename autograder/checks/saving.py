"""Checks for `Exp` (notebook 04): `Exp.apply(x)` returns exp(x) and saves its OUTPUT for backward.

What is checked, all by behaviour:
- values and gradients (float64 gradcheck over shapes and seeds, grad_output scaling);
- forward, called with a crafted ctx, hands exactly the tensor it returns to ctx.save_for_backward
  (not the input, not a clone, not a detached alias, nothing else);
- an in-place change of the output before backward makes backward raise autograd's version error, and the
  same call with the output left alone gives the right gradient;
- an in-place change of the input before backward does not matter (backward does not need the input);
- each of these for a leaf input and for a non-leaf input, of the shapes the gradient checks use too.
"""

import torch

from autograder.checks import behaviour
from autograder.checks import common as c

NAME = "Exp"
SHAPES = [(), (4,), (2, 3), (2, 3, 4)]
_INPLACE = "modified by an inplace operation"


def _exp(x: torch.Tensor) -> torch.Tensor:
    return torch.exp(x.detach())


def _uses_setup_context(Function) -> bool:
    return c.uses_setup_context(Function)


def forward_with_fake_ctx(Function, *inputs, name: str, ctx=None):
    """Run forward (and setup_context, if the class uses that style) with a FakeCtx (or `ctx`), as the engine
    would: in no-grad mode. Returns (ctx, output)."""
    if ctx is None:
        ctx = c.FakeCtx(needs_input_grad=[isinstance(t, torch.Tensor) and t.requires_grad for t in inputs])
    with torch.no_grad():
        if _uses_setup_context(Function):
            output = c.call(Function.forward, *inputs, what=f"{name}.forward")
            c.call(Function.setup_context, ctx, inputs, output, what=f"{name}.setup_context")
        else:
            output = c.call(Function.forward, ctx, *inputs, what=f"{name}.forward")
    return ctx, output


def values(Exp) -> None:
    """Visible: forward values, the gradient on a small example, and that .apply records Exp's node."""
    c.require_function(Exp, NAME)
    c.require_self_contained(Exp, NAME)
    x = torch.tensor([-2.0, -0.5, 0.0, 1.0, 2.5], dtype=torch.float64, requires_grad=True)
    y = c.call(Exp.apply, x, what="Exp.forward")
    c.require_close(y, _exp(x), "Exp.apply(x)", "wrong-forward", "forward should return torch.exp(x).")
    c.require_own_node(y, Exp, NAME)
    (grad,) = c.backward_grads(y, [x], what="Exp.backward")
    c.require_close(grad, _exp(x), "the gradient of Exp.apply(x).sum()", "wrong-derivative",
                    "d exp(x)/dx = exp(x), which is the output y: return grad_output * y.")


def gradcheck(Exp, seeds=(0, 1, 2)) -> None:
    """Hidden: float64 finite differences over several shapes and seeds, and grad_output scaling."""
    c.require_function(Exp, NAME)
    for seed in seeds:
        for shape in SHAPES:
            x = c.randn(*shape, seed=seed)
            try:
                c.gradcheck(Exp.apply, (x,), f"Exp on shape {shape}",
                            hint="backward must return grad_output * y, where y = exp(x) is the saved output.")
            except (c.Mistake, NotImplementedError, RuntimeError):
                raise
            except Exception as error:  # a crash inside the learner's code that is not a RuntimeError
                c.fail("crashed", f"Exp on shape {shape}: your code raised {type(error).__name__}: "
                                  f"{str(error)[:200]}.")
    # A random grad_output must scale the gradient element by element.
    x = c.randn(2, 5, seed=10)
    grad_output = c.randn(2, 5, seed=11, requires_grad=False)
    y = c.call(Exp.apply, x, what="Exp.forward")
    (grad,) = c.backward_grads(y, [x], grad_output, what="Exp.backward")
    c.require_close(grad, grad_output * _exp(x), "the gradient for a random grad_output", "ignores-grad-output",
                    "multiply the local derivative y by grad_output (the chain rule), element by element.")


def saves_output(Exp, seeds=(20, 21)) -> None:
    """forward passes exactly the tensor it returns, and nothing else, to ctx.save_for_backward."""
    c.require_function(Exp, NAME)
    for seed in seeds:
        _saves_output(Exp, seed)


def _saves_output(Exp, seed: int) -> None:
    x = c.randn(*SHAPES[1 + seed % (len(SHAPES) - 1)], seed=seed)
    ctx, y = forward_with_fake_ctx(Exp, x, name=NAME, ctx=behaviour.stand_in_ctx(NAME, (True,)))
    c.require_close(y, _exp(x), "Exp.forward(ctx, x)", "wrong-forward", "forward should return torch.exp(x).")
    saved = tuple(ctx.saved_tensors)
    if ctx._save_calls == 0 or not saved:
        c.fail("not-saved-for-backward",
               "forward never called ctx.save_for_backward: a tensor kept as a plain attribute (ctx.y = y, "
               "ctx.x = x) escapes the version counter, and for an output it even creates a reference cycle. "
               "Write ctx.save_for_backward(y) with the output y.")
    if any(t is y for t in saved) and len(saved) > 1:
        extra = "the input x" if any(t is x for t in saved) else "another tensor"
        c.fail("saves-extra",
               f"forward saved the output and also {extra}. The derivative of exp is its output alone: "
               "save only y, so that x can be freed (or changed in place) after forward.")
    if len(saved) > 1:
        c.fail("saves-extra", f"forward saved {len(saved)} tensors: save only the output y = exp(x).")
    (s,) = saved
    if s is x:
        c.fail("saves-input",
               "forward saved the input x, so backward has to recompute exp(x) and keeps x alive. "
               "The derivative of exp is its own output: save the output y with ctx.save_for_backward(y) "
               "and return grad_output * y.")
    if s is y:
        return
    if isinstance(s, torch.Tensor) and c.same_storage(s, y):
        c.fail("saves-alias",
               "forward saved a detached alias of the output (y.detach() or a view), not the output itself. "
               "Save the very tensor you return: ctx.save_for_backward(y); autograd then knows it is an "
               "output (that is what keeps a second derivative correct).")
    if isinstance(s, torch.Tensor) and tuple(s.shape) == tuple(y.shape) and bool(torch.allclose(s, y)):
        c.fail("saves-copy",
               "forward saved a copy (a clone) of the output, not the output itself: an in-place change of "
               "the output then goes unnoticed. Save the tensor you return: ctx.save_for_backward(y).")
    c.fail("saves-wrong-tensor",
           "the tensor forward saved is not the output it returns: save the output y = exp(x) "
           "with ctx.save_for_backward(y).")


def _input(seed: int, leaf: bool):
    """An input of one of the shapes every test uses: a leaf, or a non-leaf (a leaf times 1) with its leaf."""
    shape = SHAPES[1 + seed % (len(SHAPES) - 1)]
    base = c.randn(*shape, seed=seed)
    return base, (base if leaf else base * 1.0)


def _unprovoked(error: RuntimeError, leaf: bool, what: str) -> None:
    kind = "a leaf" if leaf else "the result of another operation (a non-leaf)"
    c.fail("error-without-change",
           f"backward raised autograd's in-place error ({str(error).splitlines()[0][:160]}) although {what} was "
           f"changed in place, for an input that is {kind}. The version counter of the tensors saved with "
           "ctx.save_for_backward raises only when one of them has changed: save the output y itself and let "
           "autograd do the checking.")


def inplace_output(Exp, seeds=(30, 31)) -> None:
    """Changing the output in place before backward must raise the version-counter error, and leaving it alone
    must not: for a leaf input and a non-leaf input alike."""
    c.require_function(Exp, NAME)
    for seed in seeds:
        for leaf in (False, True):
            _inplace_output(Exp, seed, leaf)


def _inplace_output(Exp, seed: int, leaf: bool) -> None:
    base, x = _input(seed, leaf)
    y = c.call(Exp.apply, x, what="Exp.forward")
    c.require_own_node(y, Exp, NAME)
    y.mul_(2.0)  # allowed: y is not a leaf; its version goes from 0 to 1
    try:
        torch.autograd.grad(y.sum(), [base])
    except NotImplementedError:
        c.fail("not-implemented", "Exp.backward is not implemented yet (it still raises NotImplementedError).")
    except RuntimeError as error:
        if _INPLACE not in str(error):
            c.explain(error, "Exp.backward", c.ENGINE_RULES)
            raise
    else:
        c.fail("output-change-unnoticed",
               "the output y was changed in place (y.mul_(2)) before backward and backward did not raise: "
               "it did not use the output saved with ctx.save_for_backward(y), whose version counter would "
               "have caught the change. Save the output itself (not the input, not ctx.y = y, not a copy).")
    # The other direction: the same call, the output left alone, must give the right gradient.
    base, x = _input(seed + 50, leaf)
    y = c.call(Exp.apply, x, what="Exp.forward")
    weight = c.randn(*y.shape, seed=seed + 60, requires_grad=False)
    try:
        (grad,) = torch.autograd.grad(y, [base], weight)
    except NotImplementedError:
        c.fail("not-implemented", "Exp.backward is not implemented yet (it still raises NotImplementedError).")
    except RuntimeError as error:
        if _INPLACE in str(error):
            _unprovoked(error, leaf, "nothing")
        c.explain(error, "Exp.backward", c.ENGINE_RULES)
        raise
    c.require_close(grad, weight * _exp(base), "the gradient when nothing was changed in place", "wrong-derivative",
                    "backward must return grad_output * y, with y the saved output.")


def inplace_input(Exp, seeds=(40, 41)) -> None:
    """backward does not need the input, so changing the input in place after forward is harmless: for a leaf
    input and a non-leaf input alike."""
    c.require_function(Exp, NAME)
    for seed in seeds:
        for leaf in (False, True):
            _inplace_input(Exp, seed, leaf)


def _inplace_input(Exp, seed: int, leaf: bool) -> None:
    base, x = _input(seed, leaf)
    y = c.call(Exp.apply, x, what="Exp.forward")
    expected = _exp(base)
    with torch.no_grad():
        x.add_(1.0)
    try:
        (grad,) = torch.autograd.grad(y.sum(), [base])
    except NotImplementedError:
        c.fail("not-implemented", "Exp.backward is not implemented yet (it still raises NotImplementedError).")
    except RuntimeError as error:
        if _INPLACE in str(error):
            c.fail("needs-input",
                   "changing the input x in place after forward made backward fail: your Function saved x. "
                   "Backward of exp needs only the output, so save only y: then x is free to change "
                   "(or to be freed).")
        c.explain(error, "Exp.backward", c.ENGINE_RULES)
        raise
    if bool(torch.allclose(grad, expected, rtol=1e-7, atol=1e-7)):
        return
    # Control: the same call without any in-place change. If that is wrong too, the derivative is the problem.
    control = base.detach().clone().requires_grad_(True)
    (control_grad,) = c.backward_grads(c.call(Exp.apply, control if leaf else control * 1.0, what="Exp.forward").sum(),
                                       [control], what="Exp.backward")
    if not bool(torch.allclose(control_grad, _exp(control), rtol=1e-7, atol=1e-7)):
        c.fail("wrong-derivative", "the gradient is wrong even when nothing is changed in place: backward must "
                                   "return grad_output * y, with y the saved output.")
    c.require_close(grad, expected, "the gradient after the input was changed in place", "uses-input",
                    "backward must use the saved output y, not the (since changed) input x.")
