"""Checks of LinearFunction (notebook 12): `LinearFunction.apply(x, weight, bias)` is x @ weight.T + bias, whose
backward returns a gradient of each input's exact shape, None for a missing bias and for every input whose
ctx.needs_input_grad entry is False (the contract: inplace_modules/__init__.py). Its expected values (torch's own linear
layer, differentiated by autograd) serve the Linear module's checks too (linear_module.py,
linear_probe.py)."""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.explain import Rule, explained


LINEAR_FN = "LinearFunction"
LINEAR_HINT = ("for the layer x @ weight.T + bias (weight is (out, in)): the gradient of x is grad_output times "
               "weight, of shape (N, in); of weight, grad_output transposed times x, of shape (out, in); of bias, "
               "grad_output summed over the batch, of shape (out,).")
INPUTS = ("x", "weight", "bias")


def torch_linear(x, weight, bias):
    """torch's own linear layer on these values (what LinearFunction's forward must equal)."""
    return torch.nn.functional.linear(x.detach(), weight.detach(), None if bias is None else bias.detach())


def torch_linear_grads(x, weight, bias, g):
    """The gradients of torch's own linear layer for grad_output g, by autograd (None for a missing bias): the
    expected values, with no hand-written backward in a module the learner's process can import."""
    leaves = [x.detach().requires_grad_(True), weight.detach().requires_grad_(True)]
    b = None if bias is None else torch.zeros(weight.shape[0], dtype=weight.dtype, requires_grad=True)
    with torch.enable_grad():
        out = torch.nn.functional.linear(leaves[0], leaves[1], b)
        grads = torch.autograd.grad(out, leaves + ([] if b is None else [b]), g.detach())
    return grads[0], grads[1], None if b is None else grads[2]


def _flipped(facts) -> bool:
    got, expected = (str(facts.get(k, "")).split(",") for k in ("got", "expected"))
    return [p.strip() for p in got][::-1] == [p.strip() for p in expected]


_NONE_BIAS_GRAD = ("{what}: bias is None, but backward returned a gradient for it: return None for a missing bias "
                   "(`if bias is not None and ctx.needs_input_grad[2]: ...`).")
_WEIGHT_T = ("{what}: the gradient of weight has shape [{got}], the transpose of weight's [{expected}]: "
             "the gradient of weight has weight's own shape, (out_features, in_features).")
_GRAD_X = ("{what}: the gradient of x has shape [{got}] but x has shape [{expected}]: "
           "the gradient of x has x's shape (N, in_features), and weight is (out, in).")
_GRAD_OTHER = "{what}: the gradient of input {position} has shape [{got}] but that input has shape [{expected}]. "


# Errors of LinearFunction, raised by the engine or already re-worded by common's engine rules.
LINEAR_RULES = (
    Rule("weight-grad-transposed", mistake="wrong-grad-shape", message=_WEIGHT_T, types=(RuntimeError,),
         when=lambda f: f.get("index") == 1 and _flipped(f)),
    Rule("wrong-grad-x", mistake="wrong-grad-shape", message=_GRAD_X, types=(RuntimeError,),
         when=lambda f: f.get("index") == 0),
    Rule("wrong-grad-shape", mistake="wrong-grad-shape", message=_GRAD_OTHER + c.literal(LINEAR_HINT),
         types=(RuntimeError,)),
    Rule("grad-for-none-bias", mistake="missing-none", message=_NONE_BIAS_GRAD, types=(RuntimeError,),
         when=lambda f: f.get("position") == 3),
    Rule("matmul-shapes", r"mat1 and mat2 shapes cannot be multiplied|size mismatch",
         "{what} raised \"{line}\". weight has shape (out_features, in_features): forward is x @ weight.T "
         "(+ bias); in backward each gradient has the shape of its input.",
         types=(RuntimeError,)),
    Rule("none-bias-crashes", r"Boolean value of Tensor with more than one value is ambiguous", types=(RuntimeError,),
         message="{what} raised \"{line}\": a tensor of several values has no single truth value, so `if bias:` "
                 "cannot tell a bias from None. Test whether bias is None instead."),
    Rule("none-bias-crashes", error="none-type", message=
         "{what} crashed on bias = None ({line}): when bias is None, forward returns x @ weight.T and backward "
         "returns None for bias.", types=(TypeError, AttributeError)),
) + c.ENGINE_RULES


def _linear_inputs(n, n_in, n_out, seed, bias=True, dtype=torch.float64):
    x = c.randn(n, n_in, seed=seed, dtype=dtype)
    weight = c.randn(n_out, n_in, seed=seed + 1, dtype=dtype)
    b = c.randn(n_out, seed=seed + 2, dtype=dtype) if bias else None
    return x, weight, b


def _require_linear_out(out, x, weight, bias, what) -> None:
    expected = torch_linear(x, weight, bias)
    if isinstance(out, torch.Tensor) and out.shape == expected.shape and weight.shape[0] == weight.shape[1]:
        no_t = x.detach() @ weight.detach() + (0 if bias is None else bias.detach())
        if bool(torch.allclose(out, no_t)) and not bool(torch.allclose(out, expected)):
            c.fail("forgets-transpose",
                   f"{what} computed x @ weight (+ bias), but weight has shape (out_features, in_features): "
                   "the layer is x @ weight.T + bias.")
    if bias is not None and isinstance(out, torch.Tensor) and out.shape == expected.shape \
            and bool(torch.allclose(out, torch_linear(x, weight, None))):
        c.fail("ignores-bias", f"{what} ignored the bias: forward returns x @ weight.T + bias when bias is given.")
    c.require_float64_kept(out, expected, what, "forward")
    c.require_close(out, expected, what, "wrong-forward", "forward returns x @ weight.T + bias (or x @ weight.T "
                    "when bias is None).", rtol=1e-10, atol=1e-12)


def _require_linear_grads(grads, x, weight, bias, g, what, wanted=(True, True, True)) -> None:
    expected = torch_linear_grads(x, weight, bias, g)
    for i, (got, exp) in enumerate(zip(grads, expected)):
        if not wanted[i] or exp is None:
            continue
        name = INPUTS[i]
        if got is None:
            c.fail("missing-gradient", f"{what}: {name} requires grad but got no gradient.")
        if i == 1 and isinstance(got, torch.Tensor) and got.shape == exp.shape and exp.shape[0] == exp.shape[1] \
                and bool(torch.allclose(got, exp.T)) and not bool(torch.allclose(got, exp)):
            c.fail("weight-grad-transposed",
                   f"{what}: the gradient of weight is transposed: it has weight's shape, (out_features, "
                   "in_features).")
        if i == 2 and isinstance(got, torch.Tensor) and got.shape == exp.shape \
                and bool(torch.allclose(got, torch.ones_like(exp) * g.shape[0])) and not bool(torch.allclose(got, exp)):
            c.fail("ignores-grad-output", f"{what}: the gradient of bias ignores grad_output: it is "
                                          "the sum over the batch of the incoming gradient.")
        c.require_float64_kept(got, exp, f"{what}: the gradient of {name}", "backward")
        c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                        rtol=1e-10, atol=1e-12)


# (N, in, out, has_bias, dtype, seed)
LINEAR_VALUE_CASES = [(4, 3, 2, True, torch.float64, 50), (4, 3, 2, False, torch.float64, 60)]
LINEAR_VALUE_TABLE = [(5, 3, 3, True, torch.float64, 50), (1, 4, 2, True, torch.float64, 60),
                      (3, 2, 2, False, torch.float64, 70), (6, 5, 4, True, torch.float32, 80)]


def linear_values(LinearFunction, cases=LINEAR_VALUE_CASES) -> None:
    """Values, the node, and the three gradients through autograd with a random grad_output. Visible: x (4, 3),
    weight (2, 3), bias (2,) and bias None; LINEAR_VALUE_TABLE: more sizes (a square weight, N = 1) and float32."""
    c.require_function(LinearFunction, LINEAR_FN)
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into
    require_grad_output_kept(lambda: [(LinearFunction.apply(*inputs), list(inputs)) for inputs in (
        _linear_inputs(4, 3, 2, seed=70), _linear_inputs(4, 3, 2, seed=80))],
        f"the gradient of {LINEAR_FN}.apply(x, weight, bias).sum()", LINEAR_FN, INPUTS)
    _require_kept_guarded(LinearFunction)
    def one_case(n, n_in, n_out, has_bias, dtype, seed) -> None:
        x, weight, bias = _linear_inputs(n, n_in, n_out, seed=seed, bias=has_bias, dtype=dtype)
        what = (f"{LINEAR_FN}.apply(x, weight, {'bias' if has_bias else 'None'}) with x ({n}, {n_in}), weight "
                f"({n_out}, {n_in}) ({str(dtype).removeprefix('torch.')})")
        with explained(what, LINEAR_RULES):
            out = c.call(LinearFunction.apply, x, weight, bias, what=f"{LINEAR_FN}.forward")
        tol = 1e-5 if dtype == torch.float32 else 1e-10
        if dtype == torch.float32:
            c.require_close(out, torch_linear(x, weight, bias), what, "wrong-forward",
                            "forward returns x @ weight.T + bias.", rtol=tol, atol=tol)
        else:
            _require_linear_out(out, x, weight, bias, what)
        c.require_own_node(out, LinearFunction, LINEAR_FN)
        g = c.randn(n, n_out, seed=seed + 5, requires_grad=False, dtype=dtype)
        inputs = [x, weight] + ([bias] if has_bias else [])
        with explained(what, LINEAR_RULES):
            grads = c.backward_grads(out, inputs, g, what=f"{LINEAR_FN}.backward")
        grads = tuple(grads) + ((None,) if not has_bias else ())
        if dtype == torch.float32:
            for got, exp, name in zip(grads, torch_linear_grads(x, weight, bias, g), INPUTS):
                if exp is not None:
                    c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                                    rtol=tol, atol=tol)
        else:
            _require_linear_grads(grads, x, weight, bias, g, what)
    c.each(cases, lambda case: one_case(*case))


def _require_kept_guarded(LinearFunction) -> None:
    """x, weight and bias, each changed in place after forward (one at a time: a change backward guards would hide
    another kept as a ctx attribute): backward raises autograd's in-place error or gives the gradient of the call
    left alone (common/kept_guarded.py). The derivative's rule, LinearFunction having no saving rule of its own."""
    inputs = list(_linear_inputs(4, 3, 2, seed=90))
    with explained(f"{LINEAR_FN}.apply(x, weight, bias), then a change in place", LINEAR_RULES):
        for position, kept in enumerate(INPUTS):
            kept_guarded.require_kept_guarded(LinearFunction.apply, inputs, what=f"{LINEAR_FN}.backward", kept=kept,
                                              change=kept_guarded.change_inputs(position))


# (N, in, out, seed)
LINEAR_GRADCHECK_CASES = [(3, 4, 2, 0)]
LINEAR_GRADCHECK_TABLE = [(n, i, o, s) for s in (1, 2) for (n, i, o) in ((1, 3, 2), (4, 2, 5), (3, 3, 3))]


def linear_gradcheck(LinearFunction, cases=LINEAR_GRADCHECK_CASES) -> None:
    """float64 gradcheck with respect to x, weight and bias (and with bias None). Visible: one size;
    LINEAR_GRADCHECK_TABLE: several sizes and seeds."""
    c.require_function(LinearFunction, LINEAR_FN)
    for n, n_in, n_out, seed in cases:
        x, weight, bias = _linear_inputs(n, n_in, n_out, seed=70 + seed)
        what = f"{LINEAR_FN} with x ({n}, {n_in}), weight ({n_out}, {n_in})"
        with explained(what, LINEAR_RULES):
            c.gradcheck(LinearFunction.apply, (x, weight, bias), what + " and a bias", hint=LINEAR_HINT,
                        reference=torch.nn.functional.linear)
            c.gradcheck(lambda a, w: LinearFunction.apply(a, w, None), (x, weight), what + " and bias None",
                        hint=LINEAR_HINT, reference=torch.nn.functional.linear)


def _direct(LinearFunction, needs, x, weight, bias, g, what):
    """forward then backward called by hand with a crafted ctx: exactly what backward returns, before the engine
    drops (or sums) anything."""
    ctx = c.FakeCtx(needs)
    args = (x.detach(), weight.detach(), None if bias is None else bias.detach())
    with torch.no_grad(), explained(what, LINEAR_RULES):
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


# (needs_input_grad, has_bias, seed)
NEEDS_CASES = [((True, True, True), True, 90), ((True, False, False), True, 91)]
NEEDS_TABLE = [((True, False, False), True, 90), ((False, True, True), True, 91), ((False, False, True), True, 92),
               ((True, True, False), False, 93), ((False, True, False), False, 94)]
# A square weight: which gradients backward computes does not depend on the shapes, and a forward that
# multiplies by weight rather than weight.T (the derivative's rule) still runs on it.
NEEDS_SIZES = (4, 3, 3)


def _forward_runs(LinearFunction, x, weight, bias) -> bool:
    """Whether an ordinary call of the learner's LinearFunction runs on these inputs (its values are the
    derivative's rule): a case whose forward raises cannot show which gradients backward computes."""
    try:
        LinearFunction.apply(x.detach(), weight.detach(), None if bias is None else bias.detach())
    except Exception:  # noqa: BLE001 - any failure of forward is the values test's to name
        return False
    return True


@c.inputs_judged_elsewhere()  # a forward that changes its inputs in place: the values test's rule
def linear_needs_input_grad(LinearFunction, cases=NEEDS_CASES) -> None:
    """Direct calls of backward with a crafted ctx, then with autograd's own node as its ctx: None for a missing
    bias and for every input whose needs_input_grad entry is False, a gradient for every other input, and of
    exactly its input's shape where the engine would quietly sum it (bias summed over the batch). The gradients'
    values are linear_values' and linear_gradcheck's rule, and so is a forward that raises: a case whose forward
    raises is left to them (unless no case runs at all). Visible: all three needed, then only x; NEEDS_TABLE:
    every other pattern, with and without bias."""
    c.require_function(LinearFunction, LINEAR_FN)
    runnable = []
    for needs, has_bias, seed in cases:
        x, weight, bias = _linear_inputs(*NEEDS_SIZES, seed=seed, bias=has_bias)
        if _forward_runs(LinearFunction, x, weight, bias):
            runnable.append((needs, has_bias, seed))
    if not runnable:  # forward raises with every case's bias (the values' rule): the same patterns without a bias
        runnable = [(needs, False, seed) for needs, _, seed in cases
                    if _forward_runs(LinearFunction, *_linear_inputs(*NEEDS_SIZES, seed=seed, bias=False))]
    for needs, has_bias, seed in runnable or list(cases)[:1]:
        _needs_case(LinearFunction, needs, has_bias, seed)


def _needs_case(LinearFunction, needs, has_bias, seed) -> None:
    n, _, n_out = NEEDS_SIZES
    x, weight, bias = _linear_inputs(*NEEDS_SIZES, seed=seed, bias=has_bias)
    g = c.randn(n, n_out, seed=seed + 5, requires_grad=False)
    needs = needs if has_bias else needs[:2] + (False,)
    what = (f"{LINEAR_FN}.backward called with ctx.needs_input_grad = {needs}"
            + ("" if has_bias else " and bias None"))
    grads = _direct(LinearFunction, needs, x, weight, bias, g, what)
    _linear_needs_verdict(grads, needs, has_bias, x, weight, bias, g, what)
    # The same with the node autograd made for LinearFunction.apply as backward's ctx, on inputs that require
    # grad as needs says: a stand-in ctx can be recognised, autograd's own node cannot.
    if not any(needs):
        return
    inputs = tuple(None if t is None else t.detach().clone().requires_grad_(n)
                   for t, n in zip((x, weight, bias), needs))
    real = behaviour.backward_by_its_node(LinearFunction, inputs, g, rules=LINEAR_RULES, as_returned=True,
                                          what=f"{LINEAR_FN}.backward with autograd's own node as its ctx")
    if real is None:
        return  # no node of its own: the values test says so
    lead = (f"{what}: called directly, backward returned what it should; but with the node autograd made for "
            f"{LINEAR_FN}.apply (on inputs requiring grad as needs_input_grad says) as its ctx")
    if not isinstance(real, tuple) or len(real) != 3:
        got = f"{len(real)} values" if isinstance(real, tuple) else f"a {behaviour.type_name(real)}"
        c.fail("wrong-arity", f"{lead}, backward returned {got}; it must return a tuple of three, one per input "
                              "(x, weight, bias), with None where there is no gradient.")
    _linear_needs_verdict(real, needs, has_bias, x, weight, bias, g, lead)


def _engine_would_sum(got, shape) -> bool:
    """Whether autograd would quietly sum a gradient of got's shape down to `shape` (rather than refuse it, which
    the tests through autograd name)."""
    try:
        return tuple(torch.broadcast_shapes(tuple(got.shape), tuple(shape))) == tuple(got.shape)
    except RuntimeError:
        return False


def _linear_needs_verdict(grads, needs, has_bias, x, weight, bias, g, what: str) -> None:
    """What backward returned for `needs`: None for a missing bias and for every input whose needs_input_grad
    entry is False, a gradient for every other one, of its input's exact shape where autograd would hide a wrong
    one by summing it (bias summed over the batch). Not the gradients' values: linear_values' rule."""
    if not has_bias and grads[2] is not None:
        c.fail("grad-for-none-bias",
               f"{what}: backward returned a {behaviour.type_name(grads[2])} for bias, which is None: return None for "
               "a missing bias.")
    shapes = (x.shape, weight.shape, None if bias is None else bias.shape)
    for i, name in enumerate(INPUTS):
        got = grads[i]
        if not needs[i]:
            if got is not None:
                c.fail("ignores-needs-input-grad",
                       f"{what}: backward computed a gradient for {name}, whose ctx.needs_input_grad entry is "
                       f"False (a frozen weight, an input that is data). Check ctx.needs_input_grad[{i}] and "
                       f"return None for {name}: skipping that matmul is the point.")
            continue
        if got is None:
            c.fail("missing-gradient", f"{what}: backward returned None for {name}, which needs a gradient.")
        if not isinstance(got, torch.Tensor) or tuple(got.shape) == tuple(shapes[i]) \
                or not _engine_would_sum(got, shapes[i]):
            continue  # right, or a gradient autograd itself refuses: the values test names it
        if i == 2 and tuple(got.shape) == tuple(g.shape):
            c.fail("bias-grad-not-summed",
                   f"{what}: the gradient of bias has shape {tuple(got.shape)}, grad_output's, not bias's "
                   f"{tuple(bias.shape)}: sum it over the batch dimension. (Through autograd the "
                   "engine silently sums such a gradient for you; do not lean on that.)")
        c.require_shape(got, shapes[i], f"{what}: the gradient of {name} (autograd would quietly sum it)",
                        code="wrong-grad-shape")
