"""In-place effects and identity across the two processes (autograder/engine/sandbox/mirror.py), table-driven, through
a bare fork: a socketpair and the learner's request loop, no root, no namespaces, no Landlock. Each scenario
runs once in this process on the real object and once through the judge's proxy of it in a fork; what the
caller observes (values, `is`, version counters, gradients, the error autograd raises) must be the same."""

from __future__ import annotations

import os
import socket

import pytest
import torch

from autograder.engine.sandbox import integrity, learner, proxy
from autograder.engine.sandbox.channel import Channel


# ----------------------------------------------------------------------------- the learner's objects

def zero_through_data(x):
    x.data.zero_()  # the version counter does not see it
    return x * 1


def double_in_place(x):
    with torch.no_grad():
        x.mul_(2)  # the version counter sees it
    return x + 0


class DirtyDouble(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return 2 * g


class SavesOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class SavesInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class ReturnsInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g


OBJECTS = {f.__name__: f for f in (zero_through_data, double_in_place, DirtyDouble, SavesOutput, SavesInput,
                                   ReturnsInput)}


# --------------------------------------------------------------------------------- what the judge does

def leaf():
    return torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)


def call_plain(fn):
    x = torch.tensor([1.0, 2.0, 3.0])
    version = x._version
    out = fn(x)
    return {"x": x.tolist(), "out": out.tolist(), "x_version_moved": x._version != version, "out_is_x": out is x}


def mark_dirty_on_a_non_leaf(fn):
    a = leaf()
    x = a * 1
    y = fn.apply(x)
    y.sum().backward()
    # The node's name as the checks read it: the learner's own, reported for the judge's stand-in node.
    node = (proxy.facts_of(x) or {}).get("grad_fn") or type(x.grad_fn).__name__
    return {"y_is_x": y is x, "x": x.tolist(), "grad": a.grad.tolist(), "node": node}


def mark_dirty_on_a_leaf(fn):
    fn.apply(leaf())
    return {}


def saved_output_changed_after_the_call(fn):
    y = fn.apply(leaf() * 1)
    y.mul_(2)
    y.sum().backward()
    return {}


def saved_input_changed_after_the_call(fn):
    x = leaf() * 1
    y = fn.apply(x)
    x.mul_(2)
    y.sum().backward()
    return {}


def saved_input_left_alone(fn):
    a = leaf()
    x = a * 1
    fn.apply(x).sum().backward()
    return {"grad": a.grad.tolist()}


def input_returned_unchanged(fn):
    x = leaf()
    y = fn.apply(x)
    y.sum().backward()
    return {"y_is_x": y is x, "y": y.tolist(), "grad": x.grad.tolist()}


SCENARIOS = [  # name, the learner's object, what the judge does with it
    ("x.data changed: values cross, the counter stays", "zero_through_data", call_plain),
    ("x changed under no_grad: values and counter cross", "double_in_place", call_plain),
    ("mark_dirty on a non-leaf: the output is the input", "DirtyDouble", mark_dirty_on_a_non_leaf),
    ("mark_dirty on a leaf: refused", "DirtyDouble", mark_dirty_on_a_leaf),
    ("saved output changed after the call: refused", "SavesOutput", saved_output_changed_after_the_call),
    ("saved input changed after the call: refused", "SavesInput", saved_input_changed_after_the_call),
    ("saved input left alone: the gradient", "SavesInput", saved_input_left_alone),
    ("input returned unchanged", "ReturnsInput", input_returned_unchanged),
]


def observe(action, fn) -> dict:
    try:
        return {"ok": action(fn)}
    except RuntimeError as error:
        text = str(error)
        phrase = next((p for p in ("modified by an inplace operation", "leaf Variable that requires grad")
                       if p in text), text[:80])
        return {"raises": phrase}


def through_a_fork(name: str, action) -> dict:
    handle = learner.handle_of(OBJECTS[name])  # before the fork: both sides know the handle
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            integrity._baseline.clear()  # no checkpoint here: this process is not a confined learner
            learner.serve(Channel(theirs))
        finally:
            os._exit(0)
    theirs.close()
    try:
        remote = proxy.Remote(proxy.Link(Channel(ours)), handle.id, handle.info)
        return observe(action, remote)
    finally:
        ours.close()
        os.waitpid(pid, 0)


@pytest.mark.parametrize("scenario,name,action", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_one_process_and_two_processes_agree(scenario, name, action):
    alone = observe(action, OBJECTS[name])
    assert through_a_fork(name, action) == alone, alone
