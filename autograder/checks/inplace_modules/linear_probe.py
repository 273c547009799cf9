"""The probe of the Linear module's checks (notebook 12): the module is built, run and trained where the learner's
class lives, with the judge's weights, and only what that gives comes back (`linear_facts`). Where the learner's
LinearFunction is wrong the module runs on a stand-in made here (torch's linear, by autograd), so that one mistake costs points once."""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.inplace_modules.linear_function import torch_linear_grads, torch_linear


def _linear_function_works(LinearFunction, x, weight, bias, grad_output) -> bool:
    """Whether the learner's LinearFunction gives the reference's output and gradients on these inputs, with x
    requiring grad and without (as in training, where only the parameters do: needs_input_grad then differs)."""
    return all(_works_with(LinearFunction, x, weight, bias, grad_output, x_needs_grad)
               for x_needs_grad in (True, False))


def _works_with(LinearFunction, x, weight, bias, grad_output, x_needs_grad: bool) -> bool:
    try:
        x_in = x.detach().clone().requires_grad_(x_needs_grad)
        leaves = ([x_in] if x_needs_grad else []) + [weight.detach().clone().requires_grad_(True)]
        b = None if bias is None else bias.detach().clone().requires_grad_(True)
        inputs = [x_in, leaves[-1]] + ([] if b is None else [b])
        given = [t.detach().clone() for t in inputs]
        out = LinearFunction.apply(x_in, leaves[-1], b)
        grads = torch.autograd.grad(out, leaves + ([] if b is None else [b]), grad_output)
    except Exception:  # noqa: BLE001 - any failure of it means the module runs on the reference instead
        return False
    if not all(torch.equal(t.detach(), v) for t, v in zip(inputs, given)):
        return False  # a forward that changes its inputs in place: LinearFunction's values rule, not the module's
    expected = [g for g in torch_linear_grads(x, weight, bias, grad_output) if g is not None]
    expected = [torch_linear(x, weight, bias)] + (expected if x_needs_grad else expected[1:])
    return len(grads) == len(expected) - 1 and all(
        isinstance(a, torch.Tensor) and a.shape == e.shape   # Linear's own tests' tolerance: a float32 inside too
        and bool(torch.allclose(a.detach(), e, rtol=1e-10, atol=1e-12))
        for a, e in zip((out,) + tuple(grads), expected))


@c.probe
def linear_facts(Linear, sizes, bias, weight, bias_values, x, grad_output, steps: int = 0, lr: float = 0.1,
                 target=None) -> dict:
    """Probe: build Linear(in, out) (or Linear(in, out, bias) when `bias` is not None) in the learner's process,
    copy `weight` and `bias_values` in, and report what running it gives: the output of m(x) (its grad_fn name
    crosses with it), the gradients of (out * grad_output).sum() with respect to x, weight and bias (None where
    none), or the error forward or backward raised (the module is moved to weight's dtype first); with `steps`,
    the losses of that many SGD steps on ((m(x) - target) ** 2).mean() over the module's weight and bias
    tensors ("bias_start": the bias's values before them, None without a bias tensor). A module whose __init__
    forgets super().__init__() is built with nn.Module's own __init__ run first (`_build`).

    If the learner's LinearFunction (the name Linear's forward reads) does not give the reference's output and
    gradients on these inputs, the module runs with the reference LinearFunction in its place (`reference` is
    then True): LinearFunction's own tests take its points, and these judge the module's code."""
    with torch.random.fork_rng(devices=[]):
        m = _build(Linear, sizes, bias)
    m.to(weight.dtype)  # the judge's float64 weights and inputs (parameters keep their identity)
    for name in ("weight", "bias"):  # a plain tensor attribute is not moved by .to: linear_parameters' rule
        value = getattr(m, name, None)
        if isinstance(value, torch.Tensor) and value.dtype != weight.dtype and name not in dict(m.named_buffers()):
            setattr(m, name, value.detach().to(weight.dtype).requires_grad_(value.requires_grad))
    w, b = getattr(m, "weight", None), getattr(m, "bias", None)
    if not isinstance(w, torch.Tensor):
        return {"error": {"type": "AttributeError", "message": "the module has no weight tensor"}}
    with torch.no_grad():  # a weight stored as (in, out) gets the given weight in its own layout: its own test
        w.copy_(weight.T if tuple(w.shape) == tuple(weight.T.shape) != tuple(weight.shape) else weight)
        if isinstance(b, torch.Tensor) and bias_values is not None and tuple(b.shape) == tuple(bias_values.shape):
            b.copy_(bias_values)
    for t in (w, b):  # a plain tensor that does not require grad: whether it is a Parameter is another test's rule
        if isinstance(t, torch.Tensor) and t.is_leaf and not t.requires_grad:
            t.requires_grad_(True)
    names = getattr(getattr(type(m), "forward", None), "__globals__", {})
    own = names.get("LinearFunction")
    facts: dict = {"reference": own is not None and not _linear_function_works(own, x, weight, bias_values,
                                                                               grad_output),
                   "bias_start": b.detach().clone() if isinstance(b, torch.Tensor) else None}
    if facts["reference"]:
        # A stand-in made here at each use, bound only in the module's globals while the probe runs: torch's
        # linear layer, its backward by autograd (no hand-written one). No module holds it for an answer to import.
        class LinearFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, weight, bias):
                ctx.save_for_backward(x, weight)
                ctx.has_bias = bias is not None
                return torch_linear(x, weight, bias)

            @staticmethod
            def backward(ctx, grad_output):
                x, weight = ctx.saved_tensors
                return torch_linear_grads(x, weight, True if ctx.has_bias else None, grad_output)

        names["LinearFunction"] = LinearFunction
    try:
        _run_module(m, x, w, b, grad_output, steps, lr, target, facts)
    except (NotImplementedError, RuntimeError, TypeError, AttributeError, ValueError) as error:
        facts["error"] = {"type": type(error).__name__, "message": str(error)[:2000]}
    finally:
        if facts["reference"]:
            names["LinearFunction"] = own
    return facts


def _build(Linear, sizes, bias):
    """Linear(in, out) (or Linear(in, out, bias)), or, when its __init__ forgets super().__init__() (the
    parameters test's rule), the same __init__ run on a module nn.Module's own __init__ has set up first."""
    n_in, n_out = sizes
    args = (n_in, n_out) if bias is None else (n_in, n_out, bias)
    try:
        return Linear(*args)
    except (AttributeError, RuntimeError) as error:
        if "before Module.__init__() call" not in str(error) and "has no attribute '_parameters'" not in str(error):
            raise
    m = Linear.__new__(Linear)
    torch.nn.Module.__init__(m)
    Linear.__init__(m, *args)
    return m


def _run_module(m, x, w, b, grad_output, steps, lr, target, facts) -> None:
    out = m(x)
    facts["out"] = out
    if isinstance(out, torch.Tensor) and out.requires_grad:
        wrt = [t for t in (x, w, b) if isinstance(t, torch.Tensor) and t.requires_grad]
        grads = iter(torch.autograd.grad(out, wrt, grad_output, allow_unused=True))
        facts["grads"] = [next(grads) if isinstance(t, torch.Tensor) and t.requires_grad else None for t in (x, w, b)]
    if steps:
        # The module's own weight and bias tensors, whether or not they are registered as Parameters (that is
        # linear_parameters' rule): the test is whether training reaches them through forward.
        optimiser = torch.optim.SGD([t for t in (w, b) if isinstance(t, torch.Tensor)], lr=lr)
        losses = []
        for _ in range(steps):
            optimiser.zero_grad()
            loss = ((m(x.detach()) - target) ** 2).mean()
            loss.backward()
            optimiser.step()
            losses.append(float(loss.detach()))
        facts["losses"] = losses
