"""What the checks of notebook 06's two straight-through estimators share (see `ste`): the shapes and case
tables, the forward and backward run through autograd and by hand (with a stand-in ctx, and with the node
autograd made as the ctx), a random `grad_output`, and where in x a mismatch lies, in words.
"""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c


SHAPES = [(7,), (3, 4), (2, 3, 4), ()]   # 0-dim last: a single number diagnoses least
DTYPES = (torch.float32, torch.float64)

# The breadth of each check is its `cases=`: the default is what the visible test runs, the tables below what
# the hidden tests run. A case is a seed, a (seed, shape) pair or a dtype, as each check says.
EXACT_CASES, EXACT_TABLE = (0,), (0, 1, 2)
BACKWARD_CASES = [(0, (7,))]
BACKWARD_TABLE = [(seed, shape) for seed in (0, 1, 2) for shape in SHAPES]
GRAPH_CASES, GRAPH_TABLE = (0,), (13, 23)


def forward_of(Fn, name: str, x: torch.Tensor) -> torch.Tensor:
    y = c.call(Fn.apply, x, what=f"{name}.forward")
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"{name}.apply(x) should return a tensor, got {type(y).__name__}.")
    return y


def random_grad(shape, seed: int, dtype) -> torch.Tensor:
    """A random grad_output (never all ones), bounded away from zero so a zeroed entry is visible."""
    g = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype, away_from=(0.0,), margin=0.1)
    return g


def grad_via_autograd(Fn, name: str, x: torch.Tensor, grad_output: torch.Tensor, watch: bool = True) -> torch.Tensor:
    """d(Fn.apply(x))/dx weighted by grad_output, through the engine; also catches in-place edits of it (unless
    not `watch`: a test of another rule then hands backward a copy of its own)."""
    leaf = x.detach().clone().requires_grad_(True)
    y = forward_of(Fn, name, leaf)
    if y.grad_fn is None:
        c.fail("no-graph", f"{name}.apply(x) returned a tensor that is not connected to x's graph "
                           f"(no grad_fn): call {name}.apply(x), and return the result of forward.")
    before = grad_output.clone()
    (grad,) = c.backward_grads(y, [leaf], grad_output, what=f"{name}.backward")
    if watch and not torch.equal(grad_output, before):
        c.fail("inplace-grad-output",
               f"{name}.backward changed grad_output in place (for example grad_output[mask] = 0). That "
               "tensor belongs to autograd and may be shared with other parts of the graph (after .sum() it "
               "is one number broadcast to every element, so one write zeroes them all): build a new tensor "
               "instead, e.g. grad_output * mask.")
    if grad is None:
        c.fail("no-gradient", f"{name}.backward returned None for x: return a gradient tensor for x.")
    return grad


def _trailing_nones_dropped(out):
    """What backward returned, with the trailing Nones autograd drops (`return grad, None` for one input is accepted)."""
    if isinstance(out, (tuple, list)):
        out = tuple(out)
        while len(out) > 1 and out[-1] is None:
            out = out[:-1]
    return out


def _direct_backward(Fn, name: str, x: torch.Tensor, grad_output: torch.Tensor):
    """Call forward and backward directly with a FakeCtx: what backward returns, before the engine
    converts dtypes or unwraps tuples for you."""
    ctx = c.FakeCtx((True,))
    x = x.detach().clone()  # a forward that changes x in place must not change the caller's (the values test's rule)
    with torch.no_grad(), c.explained(name, (c.NOT_IMPLEMENTED,)):
        if c.uses_setup_context(Fn):
            y = Fn.forward(x)
            Fn.setup_context(ctx, (x,), y)
        else:
            y = Fn.forward(ctx, x)
        out = _trailing_nones_dropped(Fn.backward(ctx, grad_output))
    if isinstance(out, (tuple, list)):
        if len(out) != 1:
            c.fail("wrong-arity", f"{name}.backward returned {len(out)} values but forward takes 1 input (x): "
                                  "return exactly one gradient.")
        (out,) = out
    return y, out


def backward_both(Fn, name: str, x: torch.Tensor, grad_output: torch.Tensor):
    """(what backward returned, how its feedback starts), twice: called directly with a stand-in ctx, then with the
    node autograd made for Fn.apply(x) as its ctx (`behaviour.backward_by_its_node`), which no answer can tell
    from real use. The second is left out when Fn.apply makes no node of its own (the engine tests say so)."""
    _, out = _direct_backward(Fn, name, x, grad_output)
    yield out, ""
    leaf = x.detach().clone().requires_grad_(True)
    real = behaviour.backward_by_its_node(Fn, (leaf,), grad_output, what=f"{name}.backward with autograd's own "
                                          "node as its ctx")
    if real is None:
        return
    real = _trailing_nones_dropped(real)
    lead = f"Called directly, {name}.backward returned what it should; but with the node autograd made as its ctx, "
    if len(real) != 1:
        c.fail("wrong-arity", f"{lead}it returned {len(real)} values but forward takes 1 input (x): return exactly "
                              "one gradient.")
    yield real[0], lead


def first_where(x: torch.Tensor, mask: torch.Tensor) -> float:
    """The first value of x where mask is True (any shape, 0-dim included)."""
    flat = mask.reshape(-1).nonzero()
    return x.detach().reshape(-1)[int(flat[0])].item()


def location_of(x: torch.Tensor, mask: torch.Tensor) -> str:
    return f"x = {first_where(x, mask)!r}"
