"""The judge's view of the learner's objects (autograder/engine/sandbox/proxy.py), through a real sandbox: what a
check sees of the learner's exceptions and results is what it would see in one process."""

from __future__ import annotations

import pytest

from autograder.engine.sandbox import Limits

LIMITS = Limits(seconds_per_test=60)
CAUSED = """
import torch
class Wrapped(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        try:
            raise NotImplementedError("the kernel is missing")
        except NotImplementedError as error:
            raise RuntimeError("compiling failed") from error
    @staticmethod
    def backward(ctx, g):
        return g
"""


def run(sandbox, answer: str, test: str):
    return sandbox.run([("setup:setup_1", "import torch\n"), ("answer_Wrapped", answer)], [("test_proxy", test)],
                       0, LIMITS).outcomes[0]


def test_an_exceptions_cause_crosses_with_it(sandbox):
    outcome = run(sandbox, CAUSED, """
try:
    Wrapped.apply(torch.ones(2, requires_grad=True))
except RuntimeError as error:
    assert "compiling failed" in str(error), error
    assert isinstance(error.__cause__, NotImplementedError), repr(error.__cause__)
    assert "the kernel is missing" in str(error.__cause__)
else:
    raise AssertionError("no error")
""")
    assert outcome.status == "passed", outcome.feedback


@pytest.mark.parametrize("chain", [1, 6])
def test_cause_chains_are_bounded(sandbox, chain):
    answer = ("import torch\n"
              "def level(i):\n"
              "    if i == 0:\n"
              "        raise ValueError('0')\n"
              "    try:\n"
              "        level(i - 1)\n"
              "    except ValueError as error:\n"
              "        raise ValueError(str(i)) from error\n"
              f"def Wrapped(x):\n    level({chain - 1})\n")
    outcome = run(sandbox, answer, f"""
try:
    Wrapped(torch.ones(2))
except ValueError as error:
    depth = 0
    while error.__cause__ is not None:
        error, depth = error.__cause__, depth + 1
    assert depth == {min(chain - 1, 4)}, depth
""")
    assert outcome.status == "passed", outcome.feedback


METHODS = """
import torch
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x
    @staticmethod
    def backward(ctx, g):
        return 2 * g
class NotCallable(torch.autograd.Function):
    forward = 3
def doubled(ctx, x):
    return 2 * x
class Renamed(torch.autograd.Function):
    forward = staticmethod(doubled)
"""


def test_a_functions_methods_and_name_cost_no_round_trip_and_behave_as_in_one_process(sandbox):
    outcome = run(sandbox, METHODS, """
from autograder.engine import shared
link = shared.learner()
before = link.requests
forward, backward, setup_context, name = Twice.forward, Twice.backward, Twice.setup_context, Twice.__name__
assert link.requests == before, link.requests - before
assert name == "Twice"
assert forward(None, torch.ones(2)).tolist() == [2.0, 2.0]
assert Renamed.forward.__name__ == "doubled", Renamed.forward.__name__  # a method's own attributes are asked for
try:
    setup_context(None, (torch.ones(1),), torch.ones(1))   # torch.autograd.Function's own: not overridden
except NotImplementedError:
    pass
else:
    raise AssertionError("the inherited setup_context ran")
try:
    NotCallable.forward(None, torch.ones(1))
except TypeError as error:
    assert "not callable" in str(error), error
else:
    raise AssertionError("an int was called")
""")
    assert outcome.status == "passed", outcome.feedback
