"""Forward must leave its inputs as they were: one rule, the values test's (`common.call` fails there with
"modifies-input"). The other tests of an exercise judge their own property (the node, what is saved, the shapes of
backward's return), so an answer whose forward changes its inputs in place must not lose them too: inside
`inputs_judged_elsewhere()`, a call that changed its inputs runs again on copies of them, the caller's tensors put
back as they were, so that the test's expectations (computed from the caller's tensors) and its verdict are those
of an answer that left them alone.

A test that changes the tensor it handed over after the call (the saved tests) calls with `as_given=True`: the
learner's Function keeps that very tensor, and nothing is put back.
"""

from __future__ import annotations

import contextlib

import torch

from autograder.checks import raw_errors
from autograder.engine.shared import Mistake

_DEPTH = [0]  # > 0 inside inputs_judged_elsewhere(); the judge's checks run one test at a time
RUN_AGAIN = [0]  # how many calls ran again on copies (a check that must know whether forward changed its inputs)


@contextlib.contextmanager
def inputs_judged_elsewhere():
    """Within a test whose rule is not "forward leaves its inputs alone" (module docstring)."""
    _DEPTH[0] += 1
    try:
        yield
    finally:
        _DEPTH[0] -= 1


def active() -> bool:
    return _DEPTH[0] > 0


def changed(snapshots: list) -> bool:
    """Whether any (tensor, values before) pair of `common.snapshot_inputs` differs now."""
    for tensor, before in snapshots:
        now = tensor.detach()
        if now.shape != before.shape or now.dtype != before.dtype or not bool(
                ((now == before) | (now.isnan() & before.isnan())).all()):
            return True
    return False


def put_back(snapshots: list) -> None:
    """The caller's tensors as they were before the call (through .data: the discarded call's graph is gone)."""
    for tensor, before in snapshots:
        if tensor.shape == before.shape and tensor.dtype == before.dtype:
            tensor.data.copy_(before)
        else:
            tensor.data = before.clone()


def copies(values):
    """`values` with every tensor (also inside tuples and lists) replaced by a copy: a differentiable one where it
    requires grad, so that gradients still reach the caller's tensor."""
    if isinstance(values, (tuple, list)):
        return type(values)(copies(v) for v in values)
    if isinstance(values, torch.Tensor):
        return values.clone() if values.requires_grad else values.detach().clone()
    return values


@contextlib.contextmanager
def waits_for(prerequisite: str, codes, what: str):
    """A mistake (`codes`) of a rule this test's property needs (rules.toml `requires`): 'not judged', its own code."""
    try:
        yield
    except Mistake as mistake:
        if mistake.code not in codes:
            raise
        raise mistake.not_judged(what, prerequisite) from None


def on_copies(fn):
    """`fn` for a check that calls it itself (gradcheck): inside `inputs_judged_elsewhere()`, on copies of its
    arguments, so that a forward changing its inputs does not change the points the check perturbs."""
    if not active():
        return fn
    return lambda *args: fn(*copies(args))


def first_call(fn, args):
    """`fn(*args)`; inside `inputs_judged_elsewhere()`, a call that autograd stopped from changing a leaf input in
    place (forward called directly in grad mode) runs again on copies of its inputs, as a call that changed them."""
    try:
        return fn(*args)
    except RuntimeError as error:
        if not active() or not raw_errors.says(error, "leaf-in-place"):
            raise
    RUN_AGAIN[0] += 1
    return fn(*copies(args))
