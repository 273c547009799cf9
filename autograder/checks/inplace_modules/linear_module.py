"""Checks of Linear (notebook 12): `Linear(in_features, out_features, bias=True)`, an nn.Module whose nn.Parameters
are weight (out, in) and bias (out,) and whose forward calls LinearFunction.apply (the contract:
inplace_modules/__init__.py). The module is built through the proxy when grading; what running and training it
gives is read through the probe `linear_facts` (linear_probe.py)."""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.explain import Rule, explained
from autograder.checks.inplace_modules.linear_function import INPUTS, LINEAR_FN, torch_linear_grads, torch_linear
from autograder.checks.inplace_modules.linear_probe import linear_facts


LINEAR = "Linear"


CONSTRUCTION_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("no-super-init", r"before Module\.__init__\(\) call|has no attribute '_parameters'",
         "{what} raised \"{line}\": call super().__init__() first in __init__, before assigning any parameter.",
         types=(AttributeError, RuntimeError)),
    Rule("wrong-signature", None, "{what} raised TypeError: {line}. The signature is "
         "Linear(in_features, out_features, bias=True).", types=(TypeError,)),
    Rule("crashes", None, "{what} raised {kind}: {line}", types=(AttributeError, RuntimeError, ValueError)),
)


def _state_rules(expected) -> tuple:
    """What nn.Module's own load_state_dict (strict) says when the module's parameters are not exactly `expected`."""
    return (Rule("extra-parameters", r"(?P<keys>(?:Missing|Unexpected) key\(s\) in state_dict:[^\n]*)",
                 "{what}: its parameters and buffers should be exactly " + c.literal(str(expected))
                 + ", but load_state_dict says: {keys}", types=(RuntimeError,)),)


_MISSING = object()


def _attribute(m, name):
    try:
        return getattr(m, name)
    except AttributeError:
        return _MISSING


def _registered(m, name) -> bool:
    """Whether `name` is one of the module's parameters, as nn.Module.get_parameter says."""
    try:
        m.get_parameter(name)
    except AttributeError:
        return False
    return True


def _kind(m, name, value) -> str:
    if value is _MISSING:
        return "missing"
    if value is None:
        return "None"
    if not isinstance(value, torch.Tensor):
        return "not a tensor"
    return "Parameter" if _registered(m, name) else "plain tensor (or a buffer)"


def _build(Linear, sizes, bias, what):
    """The learner's Linear, built where it lives (through the proxy when grading)."""
    n_in, n_out = sizes
    with explained(what, CONSTRUCTION_RULES):
        m = Linear(n_in, n_out) if bias is None else Linear(n_in, n_out, bias)
    if _attribute(m, "get_parameter") is _MISSING or _attribute(m, "load_state_dict") is _MISSING:
        c.fail("not-a-module", f"{what} gave something that is not an nn.Module: write class Linear(nn.Module).")
    return m


def _require_parameters(m, n_in, n_out, has_bias, what) -> None:
    weight = _attribute(m, "weight")
    kind = _kind(m, "weight", weight)
    if kind == "missing":
        c.fail("no-weight", f"{what} has no attribute `weight`: create it in __init__, "
                            "self.weight = nn.Parameter(torch.empty(out_features, in_features)) (then initialise it).")
    if kind != "Parameter":
        c.fail("not-a-parameter",
               f"{what}: weight is a {kind}, not an nn.Parameter, so it is not among the module's "
               "parameters: m.parameters() (and so every optimiser) never sees it, and it is never trained. "
               "Wrap it: self.weight = nn.Parameter(...).")
    shape = tuple(weight.shape)
    if shape == (n_in, n_out) and n_in != n_out:
        c.fail("weight-shape-in-out",
               f"{what}: weight has shape {shape} = (in_features, out_features), but the convention "
               f"(nn.Linear's, and LinearFunction's contract) is (out_features, in_features) = {(n_out, n_in)}.")
    if shape != (n_out, n_in):
        c.fail("wrong-weight-shape", f"{what}: weight has shape {shape} but should have shape "
                                     f"(out_features, in_features) = {(n_out, n_in)}.")
    bias = _attribute(m, "bias")
    kind = _kind(m, "bias", bias)
    if has_bias:
        if kind in ("missing", "None"):
            c.fail("no-bias", f"{what}: there is no bias parameter, but bias=True (the default) must create one: "
                              "self.bias = nn.Parameter(torch.empty(out_features)).")
        if kind != "Parameter":
            c.fail("not-a-parameter",
                   f"{what}: bias is a {kind}, not an nn.Parameter, so no optimiser ever updates it. "
                   "Wrap it: self.bias = nn.Parameter(...).")
        if tuple(bias.shape) != (n_out,):
            c.fail("wrong-bias-shape", f"{what}: bias has shape {tuple(bias.shape)} but should have shape "
                                       f"(out_features,) = {(n_out,)}.")
    else:
        if kind not in ("missing", "None"):
            c.fail("bias-when-false",
                   f"{what}: bias=False must create no bias at all, but the module has a bias {kind}. "
                   "Write self.register_parameter(\"bias\", None) (or self.bias = None) in that case, and pass "
                   "self.bias (None) to LinearFunction.apply.")
        if kind == "missing":
            c.fail("no-bias-attribute",
                   f"{what}: with bias=False the module should still have a `bias` attribute set to None "
                   "(self.register_parameter(\"bias\", None)), so forward can pass self.bias to LinearFunction.")
    init = weight.detach().clone()  # before load_state_dict writes into it (in one process it is the same tensor)
    state = {"weight": torch.zeros(n_out, n_in)} | ({"bias": torch.zeros(n_out)} if has_bias else {})
    expected = [(name, tuple(t.shape)) for name, t in state.items()]
    with explained(what, _state_rules(expected)):
        m.load_state_dict(state)
    finite = bool(torch.isfinite(init).all())
    constant = init.numel() > 1 and bool((init == init.flatten()[0]).all())
    if not finite or constant or bool(init.abs().max() > 10):
        found = "not finite" if not finite else "all equal" if constant else "some larger than 10"
        c.fail("not-initialised",
               f"{what}: the initial weight should be small random values, but they are {found}. torch.empty is "
               "uninitialised memory: fill it, e.g. uniform in +-1/sqrt(in_features) as nn.Linear does "
               "(nn.init.uniform_(self.weight, -bound, bound)).")


def _require_runnable(m, n_in, n_out, has_bias, what) -> None:
    """What running the module with given weights needs, and no more: a weight tensor of (out, in) values (in
    either layout: the layout is linear_parameters' rule) and, with a bias, a bias tensor of shape (out,). The
    other rules of the parameters (registered as nn.Parameters, a bias attribute and no bias when bias=False,
    the initial values, no extra parameters, super().__init__()) are linear_parameters' alone, so one mistake
    costs one point. `m` is None for a module built only once nn.Module's own __init__ ran (see `_runnable`)."""
    if m is None:
        return
    weight = _attribute(m, "weight")
    kind = _kind(m, "weight", weight)
    if kind in ("missing", "None", "not a tensor"):
        c.fail("no-weight", f"{what} has no weight tensor (self.weight is {kind}): create it in __init__, "
                            "self.weight = nn.Parameter(torch.empty(out_features, in_features)) (then initialise it).")
    if tuple(weight.shape) not in ((n_out, n_in), (n_in, n_out)):
        c.fail("wrong-weight-shape", f"{what}: weight has shape {tuple(weight.shape)} but should have shape "
                                     f"(out_features, in_features) = {(n_out, n_in)}.")
    bias = _attribute(m, "bias")
    bias_kind = _kind(m, "bias", bias)
    if has_bias and bias_kind in ("missing", "None"):
        c.fail("no-bias", f"{what}: there is no bias parameter, but bias=True (the default) must create one: "
                          "self.bias = nn.Parameter(torch.empty(out_features)).")
    if has_bias and (bias_kind == "not a tensor" or tuple(bias.shape) != (n_out,)):
        c.fail("wrong-bias-shape", f"{what}: bias should be a tensor of shape (out_features,) = {(n_out,)}.")


def _bias_it_has(m, sizes, asked: bool) -> bool:
    """Whether forward and training are judged with a bias: the one the module has (a tensor of shape (out,)), or
    none where it has none, whatever `bias` asked for (whether it should have one is linear_parameters' rule);
    `asked` where the module could not be built or its bias is of another shape."""
    b = _MISSING if m is None else _attribute(m, "bias")
    if isinstance(b, torch.Tensor) and tuple(b.shape) == (sizes[1],):
        return True
    return False if m is not None and (b is None or b is _MISSING) else asked


def _runnable(Linear, sizes, bias, what):
    """The learner's module built for forward and training, or None where its __init__ forgets super().__init__()
    (linear_parameters' rule): the probe then builds it with nn.Module's own __init__ run first."""
    try:
        return _build(Linear, sizes, bias, what)
    except c.Mistake as mistake:
        if mistake.code != "no-super-init":
            raise
    return None


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


# ((in, out), the bias argument or None for the default)
PARAMETER_CASES = [((3, 2), None), ((3, 2), False)]
PARAMETER_TABLE = [((5, 4), True), ((4, 5), False), ((1, 1), None), ((2, 6), True)]


def linear_parameters(Linear, cases=PARAMETER_CASES) -> None:
    """The module built where the learner's class lives, its parameters read as tensors: weight (out, in) and
    bias (out,) registered as nn.Parameters (get_parameter), randomly initialised, and exactly those
    (load_state_dict, strict); with bias=False, bias None and no bias parameter. Visible: Linear(3, 2) and
    Linear(3, 2, False); PARAMETER_TABLE: other sizes."""
    def one_case(sizes, bias) -> None:
        what = _describe_call(sizes, bias)
        _require_parameters(_build(Linear, sizes, bias, what), *sizes, bias is not False, what)
    c.each(cases, lambda case: one_case(*case))


FORWARD_CASES = [((3, 2), None, 130), ((3, 2), False, 140)]
# Not square: a weight stored as (in, out) is told apart by its shape (its layout is linear_parameters' rule).
FORWARD_TABLE = [((5, 4), True, 130), ((4, 5), False, 140), ((2, 5), None, 150)]


def linear_forward(Linear, cases=FORWARD_CASES) -> None:
    """With given weights: m(x) equals x @ weight.T + bias, its grad_fn is LinearFunctionBackward, and the
    gradients of x, weight and bias are right (the module run on a reference LinearFunction when the learner's
    is wrong, see linear_facts). Visible: Linear(3, 2) and Linear(3, 2, False); FORWARD_TABLE: other sizes."""
    for sizes, bias, seed in cases:
        what = _describe_call(sizes, bias)
        m = _runnable(Linear, sizes, bias, what)
        has_bias = _bias_it_has(m, sizes, bias is not False)
        x, weight, b, g = _module_inputs(4, *sizes, seed=seed, has_bias=has_bias)
        _require_runnable(m, *sizes, has_bias, what)
        with explained(what, CONSTRUCTION_RULES):
            facts = linear_facts(Linear, sizes, bias, weight, b, x, g)
        _require_forward_error_free(facts, f"{what}(x)")
        _require_module_output(facts, x, weight, b, g, what)


def _require_module_output(facts, x, weight, b, g, what) -> None:
    out = facts.get("out")
    expected = torch_linear(x, weight, b)
    if b is not None and isinstance(out, torch.Tensor) and out.shape == expected.shape \
            and bool(torch.allclose(out.detach(), torch_linear(x, weight, None))):
        c.fail("bias-unused", f"{what}(x) ignored its bias: forward must pass self.bias to "
                              "LinearFunction.apply(x, self.weight, self.bias).")
    c.require_close(out, expected, f"{what}(x) with given weights", "wrong-forward",
                    "forward returns LinearFunction.apply(x, self.weight, self.bias).", rtol=1e-10, atol=1e-12)
    node = c.grad_fn_name(out)
    if node != f"{LINEAR_FN}Backward":
        c.fail("bypasses-function",
               f"{what}(x) has grad_fn {node}, not {LINEAR_FN}Backward: forward must go through your Function, "
               "call LinearFunction.apply on the input and the module's parameters (not F.linear, not a matrix "
               "product of your own, not LinearFunction.forward).")
    grads = facts.get("grads")
    if grads is None:
        c.fail("no-graph", f"{what}(x) does not require grad: do not detach the output or run under no_grad.")
    for name, got, exp in zip(INPUTS, grads, torch_linear_grads(x, weight, b, g)):
        if exp is None:
            continue
        if got is None:
            c.fail("missing-gradient", f"{what}: {name} got no gradient from (m(x) * grad_output).sum().")
        if name == "weight" and tuple(got.shape) == tuple(exp.T.shape) != tuple(exp.shape):
            got = got.T  # a weight stored as (in, out): its layout is linear_parameters' rule
        c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative",
                        "forward must pass x, self.weight and self.bias to LinearFunction.apply, in that order.",
                        rtol=1e-10, atol=1e-12)


def _bias_left_out(out, x, weight, bias) -> bool:
    """Whether m(x) is x @ weight.T without the module's (nonzero) bias: the forward rule's mistake."""
    return isinstance(out, torch.Tensor) and bool(bias.abs().max() > 0) \
        and tuple(out.shape) == (x.shape[0], weight.shape[0]) \
        and bool(torch.allclose(out.detach(), torch_linear(x, weight, None), rtol=1e-10, atol=1e-12))


def _torch_sgd_losses(x, weight, bias, target, steps, lr, train_weight: bool = True):
    w = weight.clone().requires_grad_(train_weight)
    b = None if bias is None else bias.clone().requires_grad_(True)
    params = ([w] if train_weight else []) + ([] if b is None else [b])
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


TRAIN_CASES = [((3, 2), None, 150)]
TRAIN_TABLE = [((3, 2), False, 160), ((6, 4), True, 170)]


def linear_trains(Linear, cases=TRAIN_CASES) -> None:
    """Five SGD steps (lr 0.1) on a mean squared error over the module's weight and bias: training reaches them
    through forward, so the losses fall and equal those of the same steps on torch's own linear layer with the same
    weights (and the module's own bias, whatever bias says). Whether they are registered nn.Parameters (so that
    m.parameters() gives them to an optimiser) is linear_parameters' rule; a wrong LinearFunction is replaced by a
    reference one underneath (linear_facts). Visible: Linear(3, 2); TRAIN_TABLE: without bias, and other sizes."""
    for sizes, bias, seed in cases:
        what = _describe_call(sizes, bias)
        m = _runnable(Linear, sizes, bias, what)
        has_bias = _bias_it_has(m, sizes, bias is not False)
        x, weight, b, g = _module_inputs(8, *sizes, seed=seed, has_bias=has_bias)
        target = c.randn(8, sizes[1], seed=seed + 5, requires_grad=False)
        _require_runnable(m, *sizes, has_bias, what)
        with explained(what, CONSTRUCTION_RULES):
            facts = linear_facts(Linear, sizes, bias, weight, b, x, g, steps=5, lr=0.1, target=target)
        grads, out = facts.get("grads"), facts.get("out")
        if isinstance(out, torch.Tensor) and (grads is None or all(t is None for t in grads[1:])):
            continue  # forward gives no parameter a gradient (detached, .data): linear_forward's rule
        train_weight = grads is None or grads[1] is not None   # a weight forward cuts off stays where it is
        _require_forward_error_free(facts, f"training {what}")
        losses = facts.get("losses")
        # The bias the module has, even with bias=False (an extra bias is linear_parameters' rule), from its values
        # before training.
        start = b if b is not None else facts.get("bias_start")
        start = start if isinstance(start, torch.Tensor) and tuple(start.shape) == (sizes[1],) else None
        if start is not None and _bias_left_out(facts.get("out"), x, weight, start):
            start = None  # a forward that leaves its bias out is linear_forward's rule: train what forward computes
        expected = _torch_sgd_losses(x, weight, start, target, 5, 0.1, train_weight)
        if losses is None:
            c.fail("no-graph", f"training {what} gave no losses.")
        if len(set(losses)) == 1:
            c.fail("not-trained", f"five SGD steps on {what} left the loss at {losses[0]:.4g}: the optimiser changes "
                                  "nothing: does forward pass self.weight and self.bias to LinearFunction.apply?")
        got, exp = torch.tensor(losses, dtype=torch.float64), torch.tensor(expected, dtype=torch.float64)
        c.require_close(got, exp, f"the losses of five SGD steps on {what}", "wrong-training",
                        "the same steps on nn.functional.linear with the same weights give other losses: check "
                        "that forward passes self.weight and self.bias to LinearFunction.apply.",
                        rtol=1e-8, atol=1e-10)
