"""Checks for notebook 12 (in-place Functions, and Functions inside modules).

- `ScaleInplace.apply(x, alpha)` multiplies x in place by the float alpha (`x.mul_(alpha)`), declares it with
  `ctx.mark_dirty(x)` and returns x itself; backward returns `(grad_output * alpha, None)`. So a caller that
  keeps using x gets gradients through the scaling, and a tensor an earlier op saved is caught by the version
  counter.
- `LinearFunction.apply(x, weight, bias)` is `x @ weight.T + bias` for x (N, in), weight (out, in), bias (out,)
  or None; backward returns a gradient of each input's exact shape, None for a missing bias, and None for
  every input whose `ctx.needs_input_grad` entry is False.
- `Linear(in_features, out_features, bias=True)` is an nn.Module with nn.Parameters `weight` (out, in) and
  `bias` (out,) (no bias parameter when bias=False) whose forward calls `LinearFunction.apply`.

When grading, the learner's names are proxies here (autograder/sandbox/proxy.py). In-place calls cross like
any other: an input the learner's Function changed and returned with `ctx.mark_dirty` comes back as that very
input, with its history ending at the call's node, so the ScaleInplace checks run here as in one process.
A module cannot cross: the probe `linear_facts` builds the learner's Linear from sizes in the learner's process,
copies the judge's weights into it, runs it (and a few SGD steps) and returns only what it saw: parameter
names, kinds and shapes, the initial values, the output, the gradients, the losses. Every verdict is reached
here, against references computed here from the same weights and inputs.
"""

from __future__ import annotations

import contextlib
import re

import torch

from autograder.checks import common as c


INPLACE_ERROR = "modified by an inplace operation"
DIRTY_NOT_RETURNED = "marked as dirty during the forward method were not returned"


# ------------------------------------------------------------------------------------------ ScaleInplace

SCALE = "ScaleInplace"
SCALE_SHAPES = [(), (4,), (2, 3), (2, 3, 4)]
SCALE_HINT = "backward returns (grad_output * alpha, None): the scaling's derivative is alpha, times grad_output."


def _explain_scale(error: BaseException, what: str) -> None:
    text = str(error)
    if DIRTY_NOT_RETURNED in text:
        c.fail("dirty-not-returned",
               f"{what}: forward marked x dirty but returned another tensor (autograd: \"Some elements marked as "
               "dirty during the forward method were not returned as output\"). Return x itself after "
               "x.mul_(alpha): not x * alpha, not x.clone(), not a view of x.")
    if "different than None at position 2" in text:
        c.fail("grad-for-alpha",
               f"{what}: backward returned a gradient for alpha, which is a Python float, not a tensor: return "
               "None for alpha, i.e. `return grad_output * ctx.alpha, None`.")
    if isinstance(error, TypeError) and "save_for_backward can only save variables" in text:
        c.fail("saved-a-float", f"{what}: ctx.save_for_backward only takes tensors, and alpha is a Python float: "
                                "keep it as a plain attribute, `ctx.alpha = alpha`.")


@contextlib.contextmanager
def _scale_errors(what: str):
    try:
        yield
    except NotImplementedError:
        c.fail("not-implemented", f"{SCALE} is not implemented yet (it still raises NotImplementedError).")
    except c.Mistake as mistake:
        if mistake.code == "missing-none":
            c.fail("grad-for-alpha",
                   f"{what}: backward returned a gradient for alpha, which is a Python float, not a tensor: return "
                   "None for alpha, i.e. `return grad_output * ctx.alpha, None`.")
        raise
    except (RuntimeError, TypeError) as error:
        _explain_scale(error, what)
        if isinstance(error, RuntimeError):
            c.explain(error, what, c.ENGINE_RULES)
        raise


def _scale(ScaleInplace, x, alpha, what):
    """ScaleInplace.apply(x, alpha), which is meant to change x (so not common.call, which forbids that)."""
    with _scale_errors(what):
        return ScaleInplace.apply(x, alpha)


def _require_scaled_in_place(y, x, before, alpha, what) -> None:
    """y must be x itself, now alpha times its old value, its history ending at ScaleInplace's node."""
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor (x itself), got {type(y).__name__}.")
    unchanged = tuple(x.shape) == tuple(before.shape) and bool(torch.equal(x.detach(), before))
    if y is not x:
        if unchanged:
            c.fail("returns-new-tensor",
                   f"{what} left x unchanged and returned a new tensor: this Function works in place. Change x "
                   "itself with x.mul_(alpha) (not on a clone), call ctx.mark_dirty(x), and return x.")
        c.fail("no-mark-dirty",
               f"{what} changed x in place but did not tell autograd: call ctx.mark_dirty(x) in forward and return "
               "x itself. Without it autograd hands back an alias of x and x keeps its old history, so anything "
               "computed from x afterwards gets a gradient that skips the scaling, silently.")
    c.require_close(x, alpha * before, f"x after {what}", "wrong-forward",
                    "forward must multiply x by alpha in place: x.mul_(alpha).", rtol=1e-12, atol=1e-14)
    node = c.grad_fn_name(x)
    if x.requires_grad and node != f"{SCALE}Backward":
        c.fail("forward-called-directly",
               f"after {what}, x's history ends at {node}, not {SCALE}Backward: call {SCALE}.apply(x, alpha), "
               "and mark x dirty (ctx.mark_dirty(x)) so that autograd moves x's history onto your node.")


def _scale_grad(ScaleInplace, shape, alpha, seed, what, dtype=torch.float64):
    """Scale a tensor with a history, keep using x (not the returned name), compare the gradient of the leaf."""
    leaf = c.randn(*shape, seed=seed, dtype=dtype)
    x = leaf * 1.0                      # a tensor with a history, as in the middle of a network
    before = x.detach().clone()
    y = _scale(ScaleInplace, x, alpha, what)
    _require_scaled_in_place(y, x, before, alpha, what)
    weight = c.randn(*shape, seed=seed + 100, requires_grad=False, dtype=dtype)
    with _scale_errors(what):
        (grad,) = c.backward_grads((x * weight).sum(), [leaf], what=f"{SCALE}.backward")
    _require_scale_grad(grad, weight, alpha, what)


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


def scale_values(ScaleInplace, hidden: bool = False) -> None:
    """Visible: a (4,) float64 tensor with a history is scaled in place; x is returned, and the gradient of a
    loss computed from x afterwards includes the scaling. Hidden: more shapes, alphas and float32."""
    c.require_function(ScaleInplace, SCALE)
    cases = [((4,), 2.5, 0, torch.float64)]
    if hidden:
        cases = [(shape, alpha, 10 + k, torch.float64) for k, (shape, alpha) in
                 enumerate(zip(SCALE_SHAPES, (-1.5, 0.25, 3.0, -0.75)))] + [((3, 2), 1.75, 20, torch.float32)]
    for shape, alpha, seed, dtype in cases:
        what = f"{SCALE}.apply(x, {alpha}) for x of shape {shape} ({str(dtype).removeprefix('torch.')})"
        _scale_grad(ScaleInplace, shape, alpha, seed, what, dtype)


def scale_version_counter(ScaleInplace, hidden: bool = False) -> None:
    """Visible: x saved by an earlier op (sin saves its input), then scaled in place: backward through sin must
    raise autograd's in-place error. Hidden: the same behind exp (which saves its output) and a tensor without
    gradient, scaled in place and returned itself."""
    c.require_function(ScaleInplace, SCALE)
    earlier = [("x.sin()", lambda t: t.sin())]
    if hidden:
        earlier.append(("x * x", lambda t: t * t))
    for k, (name, op) in enumerate(earlier):
        leaf = c.randn(5, seed=30 + k)
        x = leaf * 1.0
        saved_by = op(x)
        before = x.detach().clone()
        what = f"{SCALE}.apply(x, 2.0) after {name}"
        y = _scale(ScaleInplace, x, 2.0, what)
        _require_scaled_in_place(y, x, before, 2.0, what)
        try:
            torch.autograd.grad(saved_by.sum(), [leaf])
        except NotImplementedError:
            c.fail("not-implemented", f"{SCALE}.backward is not implemented yet (it still raises NotImplementedError).")
        except RuntimeError as error:
            if INPLACE_ERROR in str(error):
                continue
            raise
        c.fail("version-counter-missed",
               f"{what}: {name} saved x for its backward, then your Function changed x, and autograd did not "
               "notice, so that backward silently used the scaled x. Change x with x.mul_(alpha) (an in-place "
               "op the version counter sees, not x.data.mul_) and mark it with ctx.mark_dirty(x).")
    if hidden:
        x = c.randn(2, 3, seed=35, requires_grad=False)
        before = x.detach().clone()
        what = f"{SCALE}.apply(x, -0.5) for x that does not require grad"
        y = _scale(ScaleInplace, x, -0.5, what)
        _require_scaled_in_place(y, x, before, -0.5, what)


def scale_chain(ScaleInplace, hidden: bool = False) -> None:
    """Visible: x scaled twice in place (alphas 2 and -3) before one backward: the gradient is 2 * -3 * grad_output,
    each call using its own alpha (kept on ctx). Hidden: float64 gradcheck of x -> ScaleInplace.apply(x.clone(),
    alpha) over shapes and alphas."""
    c.require_function(ScaleInplace, SCALE)
    leaf = c.randn(2, 3, seed=40)
    x = leaf * 1.0
    for alpha in (2.0, -3.0):
        before = x.detach().clone()
        what = f"{SCALE}.apply(x, {alpha})" + (" on the x just scaled by 2" if alpha < 0 else "")
        y = _scale(ScaleInplace, x, alpha, what)
        _require_scaled_in_place(y, x, before, alpha, what)
    weight = c.randn(2, 3, seed=41, requires_grad=False)
    with _scale_errors(f"{SCALE}.apply twice"):
        (grad,) = c.backward_grads((x * weight).sum(), [leaf], what=f"{SCALE}.backward")
    if isinstance(grad, torch.Tensor) and grad.shape == weight.shape and bool(torch.allclose(grad, 9.0 * weight)):
        c.fail("alpha-shared-state",
               "x scaled by 2 then by -3 before one backward, and the first call's backward used the second call's "
               "alpha. Keep alpha on ctx (ctx.alpha = alpha), not on the class or a global: ctx is new for every "
               "call.")
    _require_scale_grad(grad, weight, -6.0, f"{SCALE}.apply(x, 2.0) then {SCALE}.apply(x, -3.0)")
    if hidden:
        for k, (shape, alpha) in enumerate(zip(SCALE_SHAPES, (0.5, -2.0, 1.25, 3.0))):
            leaf = c.randn(*shape, seed=45 + k)
            what = f"{SCALE} on shape {shape} with alpha = {alpha}"
            with _scale_errors(what):
                c.gradcheck(lambda t, alpha=alpha: ScaleInplace.apply(t.clone(), alpha), (leaf,), what,
                            hint=SCALE_HINT)


# ----------------------------------------------------------------------------------------- LinearFunction

LINEAR_FN = "LinearFunction"
LINEAR_HINT = ("for out = x @ weight.T + bias: grad_x = grad_output @ weight (N, in), grad_weight = "
               "grad_output.T @ x (out, in), grad_bias = grad_output.sum(0) (out,).")
INPUTS = ("x", "weight", "bias")
_SHAPE_ERROR = re.compile(r"invalid gradient at index (\d+) - got \[(.*?)\] but expected shape compatible with "
                          r"\[(.*?)\]")
_SHAPE_MISTAKE = re.compile(r"the gradient for input (\d+) has shape \[(.*?)\] but that input has shape \[(.*?)\]")


def _linear_ref(x, weight, bias):
    out = x.detach() @ weight.detach().T
    return out if bias is None else out + bias.detach()


def _linear_grads_ref(x, weight, bias, g):
    return g @ weight.detach(), g.T @ x.detach(), None if bias is None else g.sum(0)


def _explain_linear(error: BaseException, what: str) -> None:
    text = str(error)
    if m := _SHAPE_ERROR.search(text):
        _shape_feedback(int(m.group(1)), m.group(2), m.group(3), what)
    if "different than None at position 3" in text:
        c.fail("grad-for-none-bias",
               f"{what}: bias is None, but backward returned a gradient for it: return None for a missing bias "
               "(`if bias is not None and ctx.needs_input_grad[2]: ...`).")
    if "mat1 and mat2 shapes cannot be multiplied" in text or "size mismatch" in text:
        c.fail("matmul-shapes",
               f"{what} raised \"{text.splitlines()[0][:120]}\". weight has shape (out_features, in_features): "
               "forward is x @ weight.T (+ bias); in backward grad_x = grad_output @ weight and "
               "grad_weight = grad_output.T @ x.")
    if isinstance(error, (TypeError, AttributeError)) and "NoneType" in text:
        c.fail("none-bias-crashes",
               f"{what} crashed on bias = None ({text.splitlines()[0][:120]}): when bias is None, forward returns "
               "x @ weight.T and backward returns None for bias.")


def _shape_feedback(index: int, got: str, expected: str, what: str) -> None:
    """The engine refused a gradient of the wrong shape for input `index` (0: x, 1: weight, 2: bias)."""
    name = INPUTS[index] if index < 3 else f"input {index}"
    flipped = [p.strip() for p in got.split(",")][::-1] == [p.strip() for p in expected.split(",")]
    if index == 1 and flipped:
        c.fail("weight-grad-transposed",
               f"{what}: the gradient of weight has shape [{got}], the transpose of weight's [{expected}]: "
               "grad_weight = grad_output.T @ x, of shape (out_features, in_features).")
    if index == 0:
        c.fail("wrong-grad-x",
               f"{what}: the gradient of x has shape [{got}] but x has shape [{expected}]: "
               "grad_x = grad_output @ weight (weight is (out, in), so no transpose here).")
    c.fail("wrong-grad-shape",
           f"{what}: the gradient of {name} has shape [{got}] but {name} has shape [{expected}]. {LINEAR_HINT}")


@contextlib.contextmanager
def _linear_errors(what: str):
    try:
        yield
    except c.Mistake as mistake:
        if mistake.code == "missing-none":
            c.fail("grad-for-none-bias",
                   f"{what}: bias is None, but backward returned a gradient for it: return None for a missing bias "
                   "(`if bias is not None and ctx.needs_input_grad[2]: ...`).")
        if mistake.code == "wrong-grad-shape" and (m := _SHAPE_MISTAKE.search(mistake.message)):
            _shape_feedback(int(m.group(1)), m.group(2), m.group(3), what)
        raise
    except (RuntimeError, TypeError, AttributeError) as error:
        _explain_linear(error, what)
        raise


def _linear_inputs(n, n_in, n_out, seed, bias=True, dtype=torch.float64):
    x = c.randn(n, n_in, seed=seed, dtype=dtype)
    weight = c.randn(n_out, n_in, seed=seed + 1, dtype=dtype)
    b = c.randn(n_out, seed=seed + 2, dtype=dtype) if bias else None
    return x, weight, b


def _require_linear_out(out, x, weight, bias, what) -> None:
    expected = _linear_ref(x, weight, bias)
    if isinstance(out, torch.Tensor) and out.shape == expected.shape and weight.shape[0] == weight.shape[1]:
        no_t = x.detach() @ weight.detach() + (0 if bias is None else bias.detach())
        if bool(torch.allclose(out, no_t)) and not bool(torch.allclose(out, expected)):
            c.fail("forgets-transpose",
                   f"{what} computed x @ weight (+ bias), but weight has shape (out_features, in_features): "
                   "the layer is x @ weight.T + bias.")
    if bias is not None and isinstance(out, torch.Tensor) and out.shape == expected.shape \
            and bool(torch.allclose(out, _linear_ref(x, weight, None))):
        c.fail("ignores-bias", f"{what} ignored the bias: forward returns x @ weight.T + bias when bias is given.")
    c.require_close(out, expected, what, "wrong-forward", "forward returns x @ weight.T + bias (or x @ weight.T "
                    "when bias is None).", rtol=1e-10, atol=1e-12)


def _require_linear_grads(grads, x, weight, bias, g, what, wanted=(True, True, True)) -> None:
    expected = _linear_grads_ref(x, weight, bias, g)
    for i, (got, exp) in enumerate(zip(grads, expected)):
        if not wanted[i] or exp is None:
            continue
        name = INPUTS[i]
        if got is None:
            c.fail("missing-gradient", f"{what}: {name} requires grad but got no gradient.")
        if i == 1 and isinstance(got, torch.Tensor) and got.shape == exp.shape and exp.shape[0] == exp.shape[1] \
                and bool(torch.allclose(got, exp.T)) and not bool(torch.allclose(got, exp)):
            c.fail("weight-grad-transposed",
                   f"{what}: the gradient of weight is transposed: grad_weight = grad_output.T @ x, of shape "
                   "(out_features, in_features) like weight.")
        if i == 2 and isinstance(got, torch.Tensor) and got.shape == exp.shape \
                and bool(torch.allclose(got, torch.ones_like(exp) * g.shape[0])) and not bool(torch.allclose(got, exp)):
            c.fail("ignores-grad-output", f"{what}: the gradient of bias ignores grad_output: it is "
                                          "grad_output.sum(0), the sum over the batch of the incoming gradient.")
        c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                        rtol=1e-10, atol=1e-12)


def linear_values(LinearFunction, hidden: bool = False) -> None:
    """Visible: x (4, 3), weight (2, 3), bias (2,) and bias None: values, the node, and the three gradients
    through autograd with a random grad_output. Hidden: more sizes (a square weight, N = 1) and float32."""
    c.require_function(LinearFunction, LINEAR_FN)
    cases = [(4, 3, 2, True, torch.float64), (4, 3, 2, False, torch.float64)]
    if hidden:
        cases = [(5, 3, 3, True, torch.float64), (1, 4, 2, True, torch.float64), (3, 2, 2, False, torch.float64),
                 (6, 5, 4, True, torch.float32)]
    for k, (n, n_in, n_out, has_bias, dtype) in enumerate(cases):
        x, weight, bias = _linear_inputs(n, n_in, n_out, seed=50 + 10 * k, bias=has_bias, dtype=dtype)
        what = (f"{LINEAR_FN}.apply(x, weight, {'bias' if has_bias else 'None'}) with x ({n}, {n_in}), weight "
                f"({n_out}, {n_in}) ({str(dtype).removeprefix('torch.')})")
        with _linear_errors(what):
            out = c.call(LinearFunction.apply, x, weight, bias, what=f"{LINEAR_FN}.forward")
        tol = 1e-5 if dtype == torch.float32 else 1e-10
        if dtype == torch.float32:
            c.require_close(out, _linear_ref(x, weight, bias), what, "wrong-forward",
                            "forward returns x @ weight.T + bias.", rtol=tol, atol=tol)
        else:
            _require_linear_out(out, x, weight, bias, what)
        c.require_own_node(out, LinearFunction, LINEAR_FN)
        g = c.randn(n, n_out, seed=55 + 10 * k, requires_grad=False, dtype=dtype)
        inputs = [x, weight] + ([bias] if has_bias else [])
        with _linear_errors(what):
            grads = c.backward_grads(out, inputs, g, what=f"{LINEAR_FN}.backward")
        grads = tuple(grads) + ((None,) if not has_bias else ())
        if dtype == torch.float32:
            for got, exp, name in zip(grads, _linear_grads_ref(x, weight, bias, g), INPUTS):
                if exp is not None:
                    c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                                    rtol=tol, atol=tol)
        else:
            _require_linear_grads(grads, x, weight, bias, g, what)


def linear_gradcheck(LinearFunction, hidden: bool = False) -> None:
    """float64 gradcheck with respect to x, weight and bias (and with bias None). Visible: one size;
    hidden: several sizes and seeds."""
    c.require_function(LinearFunction, LINEAR_FN)
    cases = [(3, 4, 2, 0)]
    if hidden:
        cases = [(n, i, o, s) for s in (1, 2) for (n, i, o) in ((1, 3, 2), (4, 2, 5), (3, 3, 3))]
    for n, n_in, n_out, seed in cases:
        x, weight, bias = _linear_inputs(n, n_in, n_out, seed=70 + seed)
        what = f"{LINEAR_FN} with x ({n}, {n_in}), weight ({n_out}, {n_in})"
        with _linear_errors(what):
            c.gradcheck(LinearFunction.apply, (x, weight, bias), what + " and a bias", hint=LINEAR_HINT)
            c.gradcheck(lambda a, w: LinearFunction.apply(a, w, None), (x, weight), what + " and bias None",
                        hint=LINEAR_HINT)


def _direct(LinearFunction, needs, x, weight, bias, g, what):
    """forward then backward called by hand with a crafted ctx: exactly what backward returns, before the engine
    drops (or sums) anything."""
    ctx = c.FakeCtx(needs)
    args = (x.detach(), weight.detach(), None if bias is None else bias.detach())
    with torch.no_grad(), _linear_errors(what):
        if c.uses_setup_context(LinearFunction):
            out = c.call(LinearFunction.forward, *args, what=f"{LINEAR_FN}.forward")
            c.call(LinearFunction.setup_context, ctx, args, out, what=f"{LINEAR_FN}.setup_context")
        else:
            c.call(LinearFunction.forward, ctx, *args, what=f"{LINEAR_FN}.forward")
        grads = c.call(LinearFunction.backward, ctx, g, what=f"{LINEAR_FN}.backward")
    if not isinstance(grads, tuple) or len(grads) != 3:
        got = ("a list" if isinstance(grads, list) else f"{len(grads)} values" if isinstance(grads, tuple)
               else f"a {type(grads).__name__}")
        c.fail("wrong-arity", f"{what}: backward returned {got}; it must return a tuple of three, one per input "
                              "(x, weight, bias), with None where there is no gradient.")
    return grads


NEEDS_CASES = [((True, False, False), True), ((False, True, True), True), ((False, False, True), True),
               ((True, True, False), False), ((False, True, False), False)]


def linear_needs_input_grad(LinearFunction, hidden: bool = False) -> None:
    """Direct calls of backward with a crafted ctx: a gradient of each input's exact shape (bias summed over the
    batch), None for a missing bias, None for every input whose needs_input_grad entry is False. Visible: all
    three needed, then only x; hidden: every other pattern, with and without bias."""
    c.require_function(LinearFunction, LINEAR_FN)
    cases = [((True, True, True), True), ((True, False, False), True)]
    if hidden:
        cases = NEEDS_CASES
    for k, (needs, has_bias) in enumerate(cases):
        x, weight, bias = _linear_inputs(4, 3, 2, seed=90 + k, bias=has_bias)
        g = c.randn(4, 2, seed=95 + k, requires_grad=False)
        needs = needs if has_bias else needs[:2] + (False,)
        what = (f"{LINEAR_FN}.backward called with ctx.needs_input_grad = {needs}"
                + ("" if has_bias else " and bias None"))
        grads = _direct(LinearFunction, needs, x, weight, bias, g, what)
        expected = _linear_grads_ref(x, weight, bias, g)
        if not has_bias and grads[2] is not None:
            c.fail("grad-for-none-bias",
                   f"{what}: backward returned a {type(grads[2]).__name__} for bias, which is None: return None for "
                   "a missing bias.")
        for i, name in enumerate(INPUTS):
            got, exp = grads[i], expected[i]
            if not needs[i]:
                if got is not None:
                    c.fail("ignores-needs-input-grad",
                           f"{what}: backward computed a gradient for {name}, whose ctx.needs_input_grad entry is "
                           f"False (a frozen weight, an input that is data). Check ctx.needs_input_grad[{i}] and "
                           f"return None for {name}: skipping that matmul is the point.")
                continue
            if got is None:
                c.fail("missing-gradient", f"{what}: backward returned None for {name}, which needs a gradient.")
            if i == 2 and isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(g.shape):
                c.fail("bias-grad-not-summed",
                       f"{what}: the gradient of bias has shape {tuple(got.shape)}, grad_output's, not bias's "
                       f"{tuple(bias.shape)}: sum it over the batch, grad_output.sum(0). (Through autograd the "
                       "engine silently sums such a gradient for you; do not lean on that.)")
            if i == 1 and isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(exp.shape[::-1]):
                c.fail("weight-grad-transposed",
                       f"{what}: the gradient of weight has shape {tuple(got.shape)}, the transpose of weight's "
                       f"{tuple(exp.shape)}: grad_weight = grad_output.T @ x.")
            c.require_shape(got, exp.shape, f"{what}: the gradient of {name}", code="wrong-grad-shape")
            c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                            rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------------------------ Linear

LINEAR = "Linear"


def _kind(value) -> str:
    if value is _MISSING:
        return "missing"
    if value is None:
        return "None"
    if isinstance(value, torch.nn.Parameter):
        return "Parameter"
    if isinstance(value, torch.Tensor):
        return "Tensor"
    return type(value).__name__


_MISSING = object()


@c.probe
def linear_facts(Linear, sizes, bias, weight, bias_values, x, grad_output, steps: int = 0, lr: float = 0.1,
                 target=None) -> dict:
    """Probe: build Linear(in, out) (or Linear(in, out, bias) when `bias` is not None) in the learner's process.

    Facts: whether it is an nn.Module; its named parameters (name, shape); for `weight` and `bias` the kind of
    attribute (missing, None, Parameter, Tensor, ...), its shape and its initial value. When weight (and bias)
    have the expected shapes, `weight` and `bias_values` are copied in, then: the output of m(x) (its grad_fn
    name crosses with it), the gradients of (out * grad_output).sum() with respect to x, weight and bias (None
    where none), or the error forward or backward raised (the module is moved to weight's dtype first); with
    `steps`, the losses of that many SGD steps on ((m(x) - target) ** 2).mean() over m.parameters()."""
    n_in, n_out = sizes
    with torch.random.fork_rng(devices=[]):
        m = Linear(n_in, n_out) if bias is None else Linear(n_in, n_out, bias)
    facts: dict = {"module": isinstance(m, torch.nn.Module), "type": type(m).__name__}
    if not facts["module"]:
        return facts
    facts["params"] = [(name, tuple(p.shape)) for name, p in m.named_parameters()]
    for name in ("weight", "bias"):
        value = getattr(m, name, _MISSING)
        entry = {"kind": _kind(value)}
        if isinstance(value, torch.Tensor):
            entry["shape"] = tuple(value.shape)
            entry["init"] = value.detach().clone()
            entry["requires_grad"] = bool(value.requires_grad)
        facts[name] = entry
    w = getattr(m, "weight", None)
    if not isinstance(w, torch.Tensor) or tuple(w.shape) != tuple(weight.shape):
        return facts
    m.to(weight.dtype)  # the judge's float64 weights and inputs (parameters keep their identity)
    w, b = getattr(m, "weight", None), getattr(m, "bias", None)
    with torch.no_grad():
        w.copy_(weight)
        if isinstance(b, torch.Tensor) and bias_values is not None and tuple(b.shape) == tuple(bias_values.shape):
            b.copy_(bias_values)
    try:
        out = m(x)
        facts["out"] = out
        if isinstance(out, torch.Tensor) and out.requires_grad:
            wrt = [t for t in (x, w, b) if isinstance(t, torch.Tensor) and t.requires_grad]
            grads = iter(torch.autograd.grad(out, wrt, grad_output, allow_unused=True))
            facts["grads"] = [next(grads) if isinstance(t, torch.Tensor) and t.requires_grad else None
                              for t in (x, w, b)]
        if steps:
            optimiser = torch.optim.SGD(m.parameters(), lr=lr)
            losses = []
            for _ in range(steps):
                optimiser.zero_grad()
                loss = ((m(x.detach()) - target) ** 2).mean()
                loss.backward()
                optimiser.step()
                losses.append(float(loss.detach()))
            facts["losses"] = losses
    except (NotImplementedError, RuntimeError, TypeError, AttributeError, ValueError) as error:
        facts["error"] = {"type": type(error).__name__, "message": str(error)[:2000]}
    return facts


def _construct(Linear, sizes, bias, weight, bias_values, x, g, what, **options) -> dict:
    """The probe's facts, with construction errors turned into plain feedback."""
    try:
        return linear_facts(Linear, sizes, bias, weight, bias_values, x, g, **options)
    except NotImplementedError:
        c.fail("not-implemented", f"{LINEAR} is not implemented yet (it still raises NotImplementedError).")
    except c.Mistake:
        raise
    except (AttributeError, RuntimeError) as error:
        if "before Module.__init__() call" in str(error) or "has no attribute '_parameters'" in str(error):
            c.fail("no-super-init",
                   f"{what} raised \"{str(error).splitlines()[0][:120]}\": call super().__init__() first in "
                   "__init__, before assigning any parameter.")
        c.fail("crashes", f"{what} raised {type(error).__name__}: {str(error).splitlines()[0][:200]}")
    except TypeError as error:
        c.fail("wrong-signature", f"{what} raised TypeError: {str(error).splitlines()[0][:200]}. The signature is "
                                  "Linear(in_features, out_features, bias=True).")


def _require_structure(facts, n_in, n_out, has_bias, what) -> None:
    if not facts["module"]:
        c.fail("not-a-module", f"{what} gave a {facts['type']}, not an nn.Module: write class Linear(nn.Module).")
    weight = facts["weight"]
    if weight["kind"] == "missing":
        c.fail("no-weight", f"{what} has no attribute `weight`: create it in __init__, "
                            "self.weight = nn.Parameter(torch.empty(out_features, in_features)) (then initialise it).")
    if weight["kind"] != "Parameter":
        c.fail("not-a-parameter",
               f"{what}: weight is a {weight['kind']}, not an nn.Parameter, so it is not among the module's "
               "parameters: m.parameters() (and so every optimiser) never sees it, and it is never trained. "
               "Wrap it: self.weight = nn.Parameter(...).")
    if weight["shape"] == (n_in, n_out) and n_in != n_out:
        c.fail("weight-shape-in-out",
               f"{what}: weight has shape {weight['shape']} = (in_features, out_features), but the convention "
               f"(nn.Linear's, and LinearFunction's contract) is (out_features, in_features) = {(n_out, n_in)}.")
    if weight["shape"] != (n_out, n_in):
        c.fail("wrong-weight-shape", f"{what}: weight has shape {weight['shape']} but should have shape "
                                     f"(out_features, in_features) = {(n_out, n_in)}.")
    bias = facts["bias"]
    if has_bias:
        if bias["kind"] in ("missing", "None"):
            c.fail("no-bias", f"{what}: there is no bias parameter, but bias=True (the default) must create one: "
                              "self.bias = nn.Parameter(torch.empty(out_features)).")
        if bias["kind"] != "Parameter":
            c.fail("not-a-parameter",
                   f"{what}: bias is a {bias['kind']}, not an nn.Parameter, so no optimiser ever updates it. "
                   "Wrap it: self.bias = nn.Parameter(...).")
        if bias["shape"] != (n_out,):
            c.fail("wrong-bias-shape", f"{what}: bias has shape {bias['shape']} but should have shape "
                                       f"(out_features,) = {(n_out,)}.")
    else:
        if any(name == "bias" for name, _ in facts["params"]) or bias["kind"] in ("Parameter", "Tensor"):
            c.fail("bias-when-false",
                   f"{what}: bias=False must create no bias at all, but the module has a bias {bias['kind']}. "
                   "Write self.register_parameter(\"bias\", None) (or self.bias = None) in that case, and pass "
                   "self.bias (None) to LinearFunction.apply.")
        if bias["kind"] == "missing":
            c.fail("no-bias-attribute",
                   f"{what}: with bias=False the module should still have a `bias` attribute set to None "
                   "(self.register_parameter(\"bias\", None)), so forward can pass self.bias to LinearFunction.")
    expected = [("weight", (n_out, n_in))] + ([("bias", (n_out,))] if has_bias else [])
    if sorted(facts["params"]) != sorted(expected):
        c.fail("extra-parameters", f"{what}: its parameters are {facts['params']}, but should be exactly "
                                   f"{expected}.")
    init = weight["init"]
    finite = bool(torch.isfinite(init).all())
    constant = init.numel() > 1 and bool((init == init.flatten()[0]).all())
    if not finite or constant or bool(init.abs().max() > 10):
        found = "not finite" if not finite else "all equal" if constant else "some larger than 10"
        c.fail("not-initialised",
               f"{what}: the initial weight should be small random values, but they are {found}. torch.empty is "
               "uninitialised memory: fill it, e.g. uniform in +-1/sqrt(in_features) as nn.Linear does "
               "(nn.init.uniform_(self.weight, -bound, bound)).")


def _module_inputs(n, n_in, n_out, seed, has_bias):
    x = c.randn(n, n_in, seed=seed)
    weight = c.randn(n_out, n_in, seed=seed + 1, requires_grad=False) / n_in ** 0.5
    bias = c.randn(n_out, seed=seed + 2, requires_grad=False) if has_bias else None
    g = c.randn(n, n_out, seed=seed + 3, requires_grad=False)
    return x, weight, bias, g


def _describe_call(sizes, bias):
    n_in, n_out = sizes
    return f"{LINEAR}({n_in}, {n_out})" if bias is None else f"{LINEAR}({n_in}, {n_out}, {bias})"


def _require_forward_error_free(facts, what) -> None:
    error = facts.get("error")
    if not error:
        return
    if error["type"] == "NotImplementedError":
        c.fail("not-implemented", f"{what}: something it calls is not implemented yet (NotImplementedError): "
                                  "write LinearFunction (the exercise above) and Linear.forward.")
    text = error["message"].splitlines()[0][:200] if error["message"] else ""
    c.fail("crashes", f"{what}: forward (or backward) raised {error['type']}: {text}")


def linear_parameters(Linear, hidden: bool = False) -> None:
    """Visible: Linear(3, 2) has Parameters weight (2, 3) and bias (2,), randomly initialised; Linear(3, 2, False)
    has only weight, and bias None. Hidden: other sizes."""
    cases = [((3, 2), None), ((3, 2), False)]
    if hidden:
        cases = [((5, 4), True), ((4, 5), False), ((1, 1), None), ((2, 6), True)]
    for k, (sizes, bias) in enumerate(cases):
        has_bias = bias is not False
        x, weight, b, g = _module_inputs(4, *sizes, seed=110 + 10 * k, has_bias=has_bias)
        what = _describe_call(sizes, bias)
        facts = _construct(Linear, sizes, bias, weight, b, x, g, what)
        _require_structure(facts, *sizes, has_bias, what)


def linear_forward(Linear, hidden: bool = False) -> None:
    """Visible: Linear(3, 2) with given weights: m(x) equals x @ weight.T + bias, its grad_fn is
    LinearFunctionBackward, and the gradients of x, weight and bias are right; the same for Linear(3, 2, False).
    Hidden: other sizes."""
    cases = [((3, 2), None), ((3, 2), False)]
    if hidden:
        cases = [((5, 4), True), ((4, 5), False), ((3, 3), None)]
    for k, (sizes, bias) in enumerate(cases):
        has_bias = bias is not False
        x, weight, b, g = _module_inputs(4, *sizes, seed=130 + 10 * k, has_bias=has_bias)
        what = _describe_call(sizes, bias)
        facts = _construct(Linear, sizes, bias, weight, b, x, g, what)
        _require_structure(facts, *sizes, has_bias, what)
        _require_forward_error_free(facts, f"{what}(x)")
        out = facts.get("out")
        expected = _linear_ref(x, weight, b)
        if has_bias and isinstance(out, torch.Tensor) and out.shape == expected.shape \
                and bool(torch.allclose(out.detach(), _linear_ref(x, weight, None))):
            c.fail("bias-unused", f"{what}(x) ignored its bias: forward must pass self.bias to "
                                  "LinearFunction.apply(x, self.weight, self.bias).")
        c.require_close(out, expected, f"{what}(x) with given weights", "wrong-forward",
                        "forward returns LinearFunction.apply(x, self.weight, self.bias).", rtol=1e-10, atol=1e-12)
        node = c.grad_fn_name(out)
        if node != f"{LINEAR_FN}Backward":
            c.fail("bypasses-function",
                   f"{what}(x) has grad_fn {node}, not {LINEAR_FN}Backward: forward must go through your Function, "
                   "return LinearFunction.apply(x, self.weight, self.bias) (not F.linear, not x @ self.weight.T, "
                   "not LinearFunction.forward).")
        grads = facts.get("grads")
        if grads is None:
            c.fail("no-graph", f"{what}(x) does not require grad: do not detach the output or run under no_grad.")
        for name, got, exp in zip(INPUTS, grads, _linear_grads_ref(x, weight, b, g)):
            if exp is None:
                continue
            if got is None:
                c.fail("missing-gradient", f"{what}: {name} got no gradient from (m(x) * grad_output).sum().")
            c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative",
                            "these gradients come from LinearFunction.backward: make LinearFunction's tests pass "
                            "first.", rtol=1e-10, atol=1e-12)


def _sgd_reference(x, weight, bias, target, steps, lr):
    w = weight.clone().requires_grad_(True)
    b = None if bias is None else bias.clone().requires_grad_(True)
    params = [w] + ([] if b is None else [b])
    optimiser = torch.optim.SGD(params, lr=lr)
    losses = []
    for _ in range(steps):
        optimiser.zero_grad()
        out = x.detach() @ w.T + (0 if b is None else b)
        loss = ((out - target) ** 2).mean()
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    return losses


def linear_trains(Linear, hidden: bool = False) -> None:
    """Visible: five SGD steps (lr 0.1) over m.parameters() on a mean squared error: the losses fall, and equal those
    of the same steps on a reference layer with the same weights. Hidden: without bias, and other sizes."""
    cases = [((3, 2), None)]
    if hidden:
        cases = [((3, 2), False), ((6, 4), True)]
    for k, (sizes, bias) in enumerate(cases):
        has_bias = bias is not False
        x, weight, b, g = _module_inputs(8, *sizes, seed=150 + 10 * k, has_bias=has_bias)
        target = c.randn(8, sizes[1], seed=155 + 10 * k, requires_grad=False)
        what = _describe_call(sizes, bias)
        facts = _construct(Linear, sizes, bias, weight, b, x, g, what, steps=5, lr=0.1, target=target)
        _require_structure(facts, *sizes, has_bias, what)
        _require_forward_error_free(facts, f"training {what}")
        losses = facts.get("losses")
        expected = _sgd_reference(x, weight, b, target, 5, 0.1)
        if losses is None:
            c.fail("no-graph", f"training {what} gave no losses.")
        if len(set(losses)) == 1:
            c.fail("not-trained", f"five SGD steps on {what} left the loss at {losses[0]:.4g}: the optimiser changes "
                                  "nothing. Are weight and bias nn.Parameters, and does forward use them?")
        got, exp = torch.tensor(losses, dtype=torch.float64), torch.tensor(expected, dtype=torch.float64)
        c.require_close(got, exp, f"the losses of five SGD steps on {what}", "wrong-training",
                        "the same steps on nn.functional.linear with the same weights give other losses: check "
                        "LinearFunction's gradients and that forward uses self.weight and self.bias.",
                        rtol=1e-8, atol=1e-10)
