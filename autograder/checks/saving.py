"""Checks for `Exp` (notebook 04): `Exp.apply(x)` returns exp(x) and saves its OUTPUT for backward.

What is checked, all by behaviour:
- values and gradients (float64 gradcheck over shapes and seeds, grad_output scaling);
- forward, called with a crafted ctx, hands exactly the tensor it returns to ctx.save_for_backward
  (not the input, not a clone, not a detached alias, nothing else);
- an in-place change of the output before backward makes backward raise autograd's version error, and the
  same call with the output left alone gives the right gradient;
- an in-place change of the input before backward does not matter (backward does not need the input);
- each of these for a leaf input and for a non-leaf input, of the shapes the gradient checks use too.

Each check takes `cases=` (a case is (shape, seed)): its default is what the visible test cell runs, the hidden
block passes the module's larger table.
"""

import torch

from autograder.checks import behaviour, raw_errors
from autograder.checks import common as c
from autograder.checks.common import Rule

NAME = "Exp"
INPUTS = ("x",)
SHAPES = [(), (4,), (2, 3), (2, 3, 4)]

VALUES_CASES = ((-2.0, -0.5, 0.0, 1.0, 2.5),)                  # the x values of the visible example
GRADCHECK_CASES = tuple((shape, seed) for seed in (0, 1, 2) for shape in SHAPES)
SAVES_CASES = (((4,), 0), ((2, 3, 4), 20), ((4,), 21), ((2, 3), 22))
INPLACE_OUTPUT_CASES = (((4,), 0), ((4,), 30), ((2, 3), 31), ((2, 3, 4), 32))
INPLACE_INPUT_CASES = (((4,), 0), ((2, 3), 40), ((2, 3, 4), 41), ((), 42))

# A crash in the learner's code that is neither a Mistake nor a RuntimeError (gradcheck explains those).
CRASH_RULES = (Rule("crashed", None, "{what}: your code raised {kind}: {line}."),)
# Changing the input in place after forward must not matter: the error says the input was saved.
INPUT_CHANGE_RULES = (
    Rule("needs-input", error="inplace-error", message=
         "changing the input x in place after forward made backward fail: your Function saved x. Backward of exp "
         "needs only the output, so save only y: then x is free to change (or to be freed).", types=(RuntimeError,)),
) + c.engine_rules(INPUTS)


def _unprovoked_rules(leaf: bool) -> tuple:
    """autograd's in-place error although nothing was changed in place, for an input that is a leaf or not."""
    kind = "a leaf" if leaf else "the result of another operation (a non-leaf)"
    return (
        Rule("error-without-change", error="inplace-error", message=
             "backward raised autograd's in-place error ({line}) although nothing was changed in place, for an "
             f"input that is {kind}. The version counter of the tensors saved with ctx.save_for_backward raises "
             "only when one of them has changed: save the output y itself and let autograd do the checking.",
             types=(RuntimeError,)),
    ) + c.engine_rules(INPUTS)


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


def values(Exp, cases=VALUES_CASES) -> None:
    """Forward values, the gradient on small examples, and that .apply records Exp's node."""
    c.require_function(Exp, NAME)
    c.require_self_contained(Exp, NAME)
    def one_case(numbers) -> None:
        x = torch.tensor(numbers, dtype=torch.float64, requires_grad=True)
        y = c.call(Exp.apply, x, what="Exp.forward", names=INPUTS)
        # float64 to its last digits: a forward computed in float32 and cast back is 1e-8 off.
        c.require_close(y, _exp(x), "Exp.apply(x)", "wrong-forward", "forward should return torch.exp(x), in x's "
                        "dtype throughout.", rtol=1e-12, atol=1e-12)
        c.require_own_node(y, Exp, NAME)
        # y.sum(), as a loss is made: grad_output is then one number broadcast, which backward must not write into.
        (grad,) = c.backward_grads(y.sum(), [x], what="Exp.backward", names=INPUTS)
        # float64 throughout: a backward that multiplies in float32 (and is cast back) is 1e-8 off (the values are
        # float32's own: a far wrong gradient is the formula's, said below)
        if bool(torch.allclose(grad, _exp(x), rtol=1e-5, atol=1e-6)):
            c.require_float64_kept(grad, _exp(x), "the gradient of Exp.apply(x).sum()", "backward")
        c.require_close(grad, _exp(x), "the gradient of Exp.apply(x).sum()", "wrong-derivative",
                        "d exp(x)/dx = exp(x), which is the output y: multiply grad_output by the saved output.")
    c.each(cases, one_case)


def gradcheck(Exp, cases=GRADCHECK_CASES[:2]) -> None:
    """float64 finite differences, one case per (shape, seed), and grad_output scaling."""
    c.require_function(Exp, NAME)
    def one_case(shape, seed) -> None:
        x = c.randn(*shape, seed=seed)
        what = f"Exp on shape {shape}"
        with c.explained(what, CRASH_RULES):
            c.gradcheck(Exp.apply, (x,), what, names=INPUTS,
                        hint="the derivative of exp(x) is exp(x), the saved output, times grad_output.",
                        reference=torch.exp)
    c.each(cases, lambda case: one_case(*case))
    # A random grad_output must scale the gradient element by element.
    x = c.randn(2, 5, seed=10)
    grad_output = c.randn(2, 5, seed=11, requires_grad=False)
    y = c.call(Exp.apply, x, what="Exp.forward", names=INPUTS)
    (grad,) = c.backward_grads(y, [x], grad_output, what="Exp.backward", names=INPUTS)
    c.require_close(grad, grad_output * _exp(x), "the gradient for a random grad_output", "ignores-grad-output",
                    "multiply the local derivative y by grad_output (the chain rule), element by element.")


def saves_one_guarded_tensor(Exp, cases=SAVES_CASES[:1]) -> None:
    """forward passes exactly the tensor it returns, and nothing else, to ctx.save_for_backward."""
    c.require_function(Exp, NAME)
    def one_case(shape, seed) -> None:
        _saves_output(Exp, shape, seed)
    with c.inputs_judged_elsewhere():  # a forward that changes x in place: the values test's rule
        c.each(cases, lambda case: one_case(*case))


def _saves_output(Exp, shape, seed: int) -> None:
    """What forward saved, twice: called directly with a stand-in ctx, and in the node autograd made for
    Exp.apply(x) (read in the learner's process, `behaviour.real_node`). Both must be the output alone: an answer
    that recognises the stand-in and saves something else under autograd gets no point for it."""
    x = c.randn(*shape, seed=seed)
    ctx, y = forward_with_fake_ctx(Exp, x, name=NAME, ctx=behaviour.stand_in_ctx(NAME, (True,)))
    c.require_close(y, _exp(x), "Exp.forward(ctx, x)", "wrong-forward", "forward should return torch.exp(x).")
    saved = tuple(ctx.saved_tensors)
    if ctx._save_calls == 0 or not saved:
        _saved_verdict([], "")
    _saved_verdict([_stand_in_kind(s, x, y) for s in saved], "")
    facts = c.call(behaviour.real_node, Exp, (c.randn(*shape, seed=seed),), what="Exp.apply(x)", names=INPUTS)
    c.require_own_node(facts["output"], Exp, NAME)
    _saved_verdict([s["kind"] for s in facts["saved"]],
                   "Called directly, your forward saved the output; but in the node autograd made for Exp.apply(x), ")


def _stand_in_kind(s, x, y) -> str:
    """The stand-in's saved tensor in `behaviour.real_node`'s words."""
    if s is y:
        return "output"
    if s is x:
        return "input 0"
    if isinstance(s, torch.Tensor) and c.same_storage(s, y):
        return "alias of the output"
    if isinstance(s, torch.Tensor) and tuple(s.shape) == tuple(y.shape) and bool(torch.allclose(s, y)):
        return "copy of the output"
    return "other"


def _saved_verdict(kinds: list, under: str) -> None:
    """Fails unless `kinds` (what forward saved) is the output alone. `under` starts the feedback when it is the
    real node's account that differs from the direct call's."""
    lead = (under + "it ") if under else "forward "
    if not kinds:
        c.fail("not-saved-for-backward",
               f"{lead}never called ctx.save_for_backward: a tensor kept as a plain attribute (ctx.y = y, "
               "ctx.x = x) escapes the version counter, and for an output it even creates a reference cycle. "
               "Write ctx.save_for_backward(y) with the output y.")
    if "output" in kinds and len(kinds) > 1:
        extra = "the input x" if "input 0" in kinds else "another tensor"
        c.fail("saves-extra",
               f"{lead}saved the output and also {extra}. The derivative of exp is its output alone: "
               "save only y, so that x can be freed (or changed in place) after forward.")
    if len(kinds) > 1:
        c.fail("saves-extra", f"{lead}saved {len(kinds)} tensors: save only the output y = exp(x).")
    (kind,) = kinds
    if kind == "output":
        return
    if kind == "input 0":
        c.fail("saves-input",
               f"{lead}saved the input x, so backward has to recompute exp(x) and keeps x alive. "
               "The derivative of exp is its own output: save the output y with ctx.save_for_backward(y) "
               "and multiply grad_output by it.")
    if kind == "alias of the output":
        c.fail("saves-alias",
               f"{lead}saved a detached alias of the output (y.detach() or a view), not the output itself. "
               "Save the very tensor you return: ctx.save_for_backward(y); autograd then knows it is an "
               "output (that is what keeps a second derivative correct).")
    if kind == "copy of the output":
        c.fail("saves-copy",
               f"{lead}saved a copy (a clone) of the output, not the output itself: an in-place change of "
               "the output then goes unnoticed. Save the tensor you return: ctx.save_for_backward(y).")
    c.fail("saves-wrong-tensor",
           f"the tensor {lead.strip()} saved is not the output it returns: save the output y = exp(x) "
           "with ctx.save_for_backward(y).")


def _input(shape, seed: int, leaf: bool):
    """An input of `shape`: a leaf, or a non-leaf (a leaf times 1) with its leaf."""
    base = c.randn(*shape, seed=seed)
    return base, (base if leaf else base * 1.0)


def inplace_output(Exp, cases=INPLACE_OUTPUT_CASES[:1]) -> None:
    """Changing the output in place before backward must raise the version-counter error, and leaving it alone
    must not: for a leaf input and a non-leaf input alike."""
    c.require_function(Exp, NAME)
    def one_case(shape, seed) -> None:
        for leaf in (False, True):
            _inplace_output(Exp, shape, seed, leaf)
    with c.inputs_judged_elsewhere():  # a forward that changes x in place: the values test's rule
        c.each(cases, lambda case: one_case(*case))


def _inplace_output(Exp, shape, seed: int, leaf: bool) -> None:
    base, x = _input(shape, seed, leaf)
    # The control: the same values, the output doubled out of place, must not raise (its gradient is the values'
    # rule); it is what the in-place doubling below must give if backward does not read the changed output.
    twin = base.detach().clone().requires_grad_(True)
    y = c.call(Exp.apply, twin if leaf else twin * 1.0, what="Exp.forward", names=INPUTS)
    c.require_own_node(y, Exp, NAME)
    with c.explained("Exp.backward", _unprovoked_rules(leaf)):
        (control,) = torch.autograd.grad((y * 2.0).sum(), [twin])
    y = c.call(Exp.apply, x, what="Exp.forward", names=INPUTS)
    try:
        y.mul_(2.0)  # allowed: y is not a leaf; its version goes from 0 to 1
    except RuntimeError as error:  # an input forward changed in place and returned: autograd refuses the change
        if raw_errors.says(error, "view-changed-in-place"):
            return
        raise
    grads = []
    if c.inplace_error(lambda: grads.extend(torch.autograd.grad(y.sum(), [base])), "Exp.backward", INPUTS) is not None:
        return  # the version counter of what backward reads caught the change
    # No error: right only if backward never read the changed output (what it saves is saves_output's rule).
    if grads and isinstance(grads[0], torch.Tensor) and grads[0].shape == control.shape \
            and bool(torch.allclose(grads[0], control, rtol=1e-10, atol=1e-12)):
        return
    c.fail("output-change-unnoticed",
           "the output y was changed in place (y.mul_(2)) before backward, and backward read the changed value "
           "without raising: a tensor kept outside ctx.save_for_backward escapes the version counter that would "
           "have caught the change. Save the output itself with ctx.save_for_backward.")


def inplace_input(Exp, cases=INPLACE_INPUT_CASES[:1]) -> None:
    """backward does not need the input, so changing the input in place after forward is harmless: for a leaf
    input and a non-leaf input alike."""
    c.require_function(Exp, NAME)
    def one_case(shape, seed) -> None:
        for leaf in (False, True):
            _inplace_input(Exp, shape, seed, leaf)
    with c.inputs_judged_elsewhere():  # a forward that changes x in place: the values test's rule
        c.each(cases, lambda case: one_case(*case))


def _inplace_input(Exp, shape, seed: int, leaf: bool) -> None:
    base, x = _input(shape, seed, leaf)
    unchanged = base.detach().clone()
    y = c.call(Exp.apply, x, what="Exp.forward", names=INPUTS, as_given=True)
    if not torch.equal(x.detach(), unchanged):
        # forward changed x itself (the values test's rule): x is then its output, and what forward saved is the
        # saves_output test's verdict, of this test's rule too
        return
    expected = _exp(base)
    with torch.no_grad():
        x.add_(1.0)
    with c.explained("Exp.backward", INPUT_CHANGE_RULES):
        (grad,) = torch.autograd.grad(y, [base], torch.ones_like(y))  # fresh: writing into it is values' rule
    if bool(torch.allclose(grad, expected, rtol=1e-7, atol=1e-7)):
        return
    # The control: the same call without any in-place change. A gradient wrong there too is the values' rule;
    # this test asks only that the input's change changes nothing.
    control = unchanged.requires_grad_(True)
    (control_grad,) = c.backward_grads(c.call(Exp.apply, control if leaf else control * 1.0, what="Exp.forward",
                                              names=INPUTS), [control], what="Exp.backward", names=INPUTS)
    c.require_close(grad, control_grad, "the gradient after the input was changed in place", "uses-input",
                    "backward must use the saved output y, not the (since changed) input x.")
