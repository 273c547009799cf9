"""Plans (autograder/engine/sandbox/plans.py), through a real sandbox: gradcheck's fast mode asks the learner's process
in two round trips instead of eight (its slow mode, explaining a failure, in three instead of one a request), and gives
what it gives asked one request at a time, for honest, wrong, hostile and unusual Functions alike; a plan stops at the
first request that raises or changes its inputs; a tampering answer is reported from inside a plan as from a single
request.

Each answer is graded twice, each time on a fresh copy of the learner's process: torch's gradcheck with its requests
planned (as `checks.common` grades), and the same with every request sent alone. The test cell's outcome carries what
gradcheck returned or raised, the round trips it took, and the input's values after it."""

from __future__ import annotations

import re

import pytest

from autograder.engine.sandbox import Limits

LIMITS = Limits(seconds_per_test=60)

HEADER = """
import torch
def make(forward, backward, outputs=1):
    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return forward(x)
        @staticmethod
        def backward(ctx, *grads):
            (x,) = ctx.saved_tensors
            return backward(x, *grads)
    return Fn
CALLS = [0]
def counted(x):
    CALLS[0] += 1
    return x * x if CALLS[0] < 4 else x * x + 1e-3
def unsteady(x, g):
    return 2 * x * g + 1e-9 * torch.rand_like(x)
def mutating(x):
    x.data.add_(1.0)
    return x * x
def raises_late(x):
    CALLS[0] += 1
    if CALLS[0] > 2:
        raise ValueError("third call")
    return x * x
"""
ANSWERS = {
    "honest": "Fn = make(lambda x: x * x, lambda x, g: 2 * x * g)",
    "wrong-derivative": "Fn = make(lambda x: x * x, lambda x, g: x * g)",
    "ignores-grad-output": "Fn = make(lambda x: x * x, lambda x, g: 2 * x)",
    "not-reentrant": "Fn = make(lambda x: x * x, unsteady)",
    "mutates-its-input": "Fn = make(mutating, lambda x, g: 2 * x * g)",
    "forward-changes-with-calls": "Fn = make(counted, lambda x, g: 2 * x * g)",
    "forward-raises-on-a-later-call": "Fn = make(raises_late, lambda x, g: 2 * x * g)",
    "backward-raises": "Fn = make(lambda x: x * x, lambda x, g: 1 / 0)",
    "wrong-gradient-shape": "Fn = make(lambda x: x * x, lambda x, g: (2 * x * g).sum())",
    "two-outputs": "Fn = make(lambda x: (x * x, 3 * x), lambda x, g, h: 2 * x * g + 3 * h)",
    "an-integer-output-beside": "Fn = make(lambda x: (x * x, (x > 0).long()), lambda x, g, h: 2 * x * g)",
}
TEST = """
import contextlib
from autograder.engine import shared
link = shared.learner()
x = torch.linspace(-1.0, 1.5, 6, dtype=torch.float64).reshape(2, 3).requires_grad_()
fn = {fn}
options = dict(eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True)
before = link.requests
try:
    if {slow}:
        with link.slow_gradcheck_plan(torch.autograd.gradcheck, fn, (x,), options) if {planned} else \
                contextlib.nullcontext():
            result = torch.autograd.gradcheck(fn, (x,), **options)
    else:
        with link.gradcheck_plan(fn, (x,), options) if {planned} else contextlib.nullcontext():
            result = torch.autograd.gradcheck(fn, (x,), fast_mode=True, **options)
except Exception as error:
    result = f"{{type(error).__name__}}: {{error}}"
raise AssertionError(f"trips {{link.requests - before}}; result {{result!r}}; x after {{x.detach().tolist()}}")
"""


def gradcheck(sandbox, answer: str, planned: bool, fn: str = "Fn.apply", slow: bool = False) -> tuple:
    """(what gradcheck returned or raised, its round trips, the input after it), from a fresh learner's copy; `slow`:
    torch's slow mode (which explains a failure), planned with `slow_gradcheck_plan`."""
    outcome, = sandbox.run([("setup:setup_1", HEADER), ("answer_Fn", answer)],
                           [("test_plan", TEST.format(fn=fn, planned=planned, slow=slow))], limits=LIMITS).outcomes
    found = re.search(r"trips (\d+); (result .*)", outcome.feedback, re.S)
    assert found, outcome.feedback
    return int(found.group(1)), found.group(2)


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_planned_gradcheck_gives_what_single_requests_give(sandbox, name):
    (planned_trips, planned), (alone_trips, alone) = (gradcheck(sandbox, ANSWERS[name], True),
                                                      gradcheck(sandbox, ANSWERS[name], False))
    assert planned == alone
    assert planned_trips <= alone_trips


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_planned_slow_gradcheck_gives_what_single_requests_give(sandbox, name):
    (planned_trips, planned), (alone_trips, alone) = (gradcheck(sandbox, ANSWERS[name], True, slow=True),
                                                      gradcheck(sandbox, ANSWERS[name], False, slow=True))
    assert planned == alone
    assert planned_trips <= alone_trips


def test_a_failing_slow_gradcheck_asks_in_three_plans_what_it_asked_in_twenty_five_trips(sandbox):
    # x has 6 elements: fn at x, at x -+ eps along each (12 calls), and the output's 6 rows of the Jacobian, twice
    assert gradcheck(sandbox, ANSWERS["wrong-derivative"], False, slow=True)[0] == 25
    assert gradcheck(sandbox, ANSWERS["wrong-derivative"], True, slow=True)[0] == 3


def test_a_gradcheck_that_passes_takes_two_round_trips_instead_of_eight(sandbox):
    assert gradcheck(sandbox, ANSWERS["honest"], True) == (2, "result True; x after [[-1.0, -0.5, 0.0], "
                                                              "[0.5, 1.0, 1.5]]")
    assert gradcheck(sandbox, ANSWERS["honest"], False)[0] == 8
    # a function of the judge's around the learner's: its requests are planned the same way
    assert gradcheck(sandbox, ANSWERS["honest"], True, "lambda t: Fn.apply(t.clone())")[0] == 2
    assert gradcheck(sandbox, ANSWERS["an-integer-output-beside"], True, "lambda t: Fn.apply(t)[0]")[0] == 2


MANY = """
import torch
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, *xs):
        return sum(xs)
    @staticmethod
    def backward(ctx, g):
        return (g,) * 40
"""
MANY_TEST = """
from autograder.engine import shared
xs = tuple(torch.randn(2, dtype=torch.float64, requires_grad=True) for _ in range(40))
options = dict(eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True)
with shared.learner().gradcheck_plan(Fn.apply, xs, options):  # 81 calls: more than a plan holds
    assert torch.autograd.gradcheck(Fn.apply, xs, fast_mode=True, **options)
assert shared.learner().plans_sent == 0
"""


def test_a_gradcheck_of_more_evaluations_than_a_plan_holds_asks_one_request_at_a_time(sandbox):
    outcome, = sandbox.run([("setup:setup_1", "import torch\n"), ("answer_Fn", MANY)], [("test_plan", MANY_TEST)],
                           limits=LIMITS).outcomes
    assert outcome.status == "passed", outcome.feedback


TAMPERING = """
import torch
CALLS = [0]
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        CALLS[0] += 1
        if CALLS[0] == 3:  # inside the plan: the request after it never runs
            torch.allclose = lambda *args, **kwargs: True
        return x * x
    @staticmethod
    def backward(ctx, g):
        return g
"""


def test_tampering_inside_a_plan_is_reported_as_for_a_single_request(sandbox):
    trips, feedback = gradcheck(sandbox, TAMPERING, True)
    assert "replaced or removed objects PyTorch or the grader rely on" in feedback and "torch.allclose" in feedback
    assert trips == 1
