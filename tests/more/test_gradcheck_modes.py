"""Fast then slow gradcheck gives the slow mode's verdicts and feedback.

`checks.common.gradcheck` and `gradgradcheck` run torch's fast mode (one random projection of the Jacobian) and
the slow mode (the whole Jacobian, which names the element and the input that differ) only when fast mode does
not pass. This file shows that nothing a learner sees changes: every test cell of every reference answer, and of a
fixed sample of the zoo entries and honest answers, that reaches a gradcheck is run twice in this process, as graded
and with the slow mode alone (`common._fast_then_slow` replaced by `_slow_alone` here), and the two outcomes (status,
feedback, mistake code, details) must be the same. The unit tests below pin the four ways the two could part: a failure
explained by the fast mode's message, an error in one element too small for torch's fast mode to see, a pass that only
held because the answer changed its inputs, and the random grad_outputs gradgradcheck draws.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from autograder.engine import grading, notebooks
from autograder.maintain import samples
from autograder.checks import common
from autograder.engine.shared import Mistake
from helpers import cells_about, run_in_process, sampled

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
GradcheckError = sys.modules["torch.autograd.gradcheck"].GradcheckError  # the name `gradcheck` is the function
HONEST = sorted((Path(__file__).parent.parent / "honest").glob("*/*.py"))
FAST_THEN_SLOW = common._fast_then_slow  # the live path, as graded


def _slow_alone(check, fn, inputs, **options) -> None:
    """torch's slow mode alone, on the options the checks pass: what fast then slow must give."""
    check(fn, inputs, **options)


def use_modes(monkeypatch, slow_only: bool) -> None:
    """The checks' gradcheck and gradgradcheck run the slow mode alone, or fast then slow as graded."""
    monkeypatch.setattr(common, "_fast_then_slow", _slow_alone if slow_only else FAST_THEN_SLOW)


# Of the zoo and the honest answers, each exercise's first and then every SAMPLE_EVERY-th (the same sample each run):
# the two modes are torch's, the same for every exercise, and the edge tests below meet the ways they could part one by
# one. (All 919 took about 5 minutes of test-more.)
SAMPLE_EVERY = 3


def _cases() -> list:
    """(source, exercise, the learner's answer): every reference notebook (exercise and answer None: all its tests),
    and a fixed sample of the zoo entries and honest answers (the tests about its exercise)."""
    cases = [pytest.param(SOURCES[a], None, None, id=f"reference/{a}") for a in sorted(SOURCES)]
    cases += [pytest.param(EXERCISE_TO_SOURCE[e.exercise], e.exercise, e.source, id=f"zoo/{e.exercise}/{e.name}")
              for e in sampled(list(samples.zoo()), lambda e: e.exercise, SAMPLE_EVERY)]
    cases += [pytest.param(EXERCISE_TO_SOURCE[p.parent.name], p.parent.name, p.read_text(),
                           id=f"honest/{p.parent.name}/{p.stem}")
              for p in sampled(HONEST, lambda p: p.parent.name, SAMPLE_EVERY)]
    return cases


@pytest.fixture
def counted(monkeypatch):
    """Counts torch's gradcheck and gradgradcheck as the checks call them: every call, and the fast-mode ones
    that passed."""
    counts = {"calls": 0, "fast": 0, "fast_passed": 0}

    def counting(check):
        def wrapped(fn, inputs, **options):
            counts["calls"] += 1
            counts["fast"] += bool(options.get("fast_mode"))
            result = check(fn, inputs, **options)
            counts["fast_passed"] += bool(options.get("fast_mode"))
            return result
        return wrapped

    monkeypatch.setattr(common, "_gradcheck", counting(common._gradcheck))
    monkeypatch.setattr(common, "_gradgradcheck", counting(common._gradgradcheck))
    return counts


def _seen(graded) -> tuple:
    """What the learner is told: the verdict, its points, the feedback and the mistake code (timings aside)."""
    return graded.status, graded.points, graded.feedback, graded.mistake


@pytest.mark.slow
@pytest.mark.parametrize("source, exercise, answer", _cases())
def test_fast_then_slow_gives_the_slow_modes_verdict_and_feedback(source, exercise, answer, counted, monkeypatch):
    if answer is None:
        before, tests = grading.plan(source, None)
    else:
        _, nb = samples.student_notebook(source.assignment, {exercise: answer})
        before, _ = grading.plan(source, nb)
        tests = cells_about(source, exercise)
    differ, compared = [], 0
    for test in tests:
        counted.update(calls=0, fast=0, fast_passed=0)
        use_modes(monkeypatch, False)
        [(grade_id, graded)] = run_in_process(before, [test])
        if not counted["calls"]:
            continue  # no gradcheck in this test: nothing could differ
        assert counted["fast"], f"{grade_id}: gradcheck ran without trying fast mode"
        fast_passed = counted["fast_passed"]
        if answer is None:  # a reference never needs the slow mode: FAST_TIGHTER is not so tight that it would
            assert fast_passed == counted["fast"], f"{grade_id}: the reference failed fast mode {counted}"
        counted.update(calls=0, fast=0, fast_passed=0)
        use_modes(monkeypatch, True)
        [(_, slow)] = run_in_process(before, [test])
        assert counted["calls"] and not counted["fast"], f"{grade_id}: the slow mode alone still tried fast mode"
        compared += 1
        if _seen(graded) != _seen(slow):
            differ.append((grade_id, f"fast passed {fast_passed}", _seen(graded), _seen(slow)))
    assert not differ, differ
    if answer is None:
        assert compared or source.assignment in {"00_when_to_write_one", "06_straight_through"}, (
            f"no test of {source.assignment} reached a gradcheck: the comparison proved nothing")


# ------------------------------------------------------------------------------------ the edges, one by one

def _x(*shape: int, seed: int) -> torch.Tensor:
    """A float64 input of its own (common.randn would shift with the base seed the tests above leave set)."""
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).requires_grad_()


def _message(check, *args, **kwargs) -> str:
    with pytest.raises(Mistake) as raised:
        check(*args, **kwargs)
    return raised.value.message


class OffAtOneElement(torch.autograd.Function):
    """sin, whose backward is 2% off for the first element only."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = grad_output * x.cos()
        grad.view(-1)[0] *= 1.02
        return grad


class TwoInTwoOut(torch.autograd.Function):
    """(x * y, x + y) with the gradient of the first output wrong for the second input and that of the second wrong
    for the first: the slow mode (outputs, then inputs) and the fast mode (inputs, then outputs) name different
    pairs first."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y, x + y

    @staticmethod
    def backward(ctx, g_product, g_sum):
        x, y = ctx.saved_tensors
        return g_product * y + 2 * g_sum, 3 * g_product * x + g_sum


def test_a_failure_is_explained_by_the_slow_mode(monkeypatch):
    x, y = _x(3, seed=1), _x(3, seed=2)
    use_modes(monkeypatch, True)
    slow = _message(common.gradcheck, lambda a, b: TwoInTwoOut.apply(a, b), (x, y), "TwoInTwoOut", names=("x", "y"))
    use_modes(monkeypatch, False)
    graded = _message(common.gradcheck, lambda a, b: TwoInTwoOut.apply(a, b), (x, y), "TwoInTwoOut",
                      names=("x", "y"))
    assert graded == slow and "output 1 with respect to input 2 (y)" in slow, slow
    # fast mode alone would have named the other pair: output 2 with respect to input 1 (x)
    with pytest.raises(GradcheckError, match="output 1 with respect to input 0,"):
        torch.autograd.gradcheck(TwoInTwoOut.apply, (x, y), eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=True)


def test_an_error_in_one_element_that_torchs_fast_mode_misses_still_fails(monkeypatch):
    x = _x(2, 3, 4, seed=3)
    options = dict(eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=False)
    assert torch.autograd.gradcheck(OffAtOneElement.apply, (x,), fast_mode=True, **options)  # at torch's tolerances
    assert not torch.autograd.gradcheck(OffAtOneElement.apply, (x,), **options)
    messages = []
    for slow_only in (True, False):
        use_modes(monkeypatch, slow_only)
        messages.append(_message(common.gradcheck, OffAtOneElement.apply, (x,), "OffAtOneElement"))
    assert messages[0] == messages[1] and "does not match the finite-difference gradient" in messages[0], messages


class SinInPlace(torch.autograd.Function):
    """sin that writes its result into x's data, and saves x (so that backward sees sin(x)): fast mode, which
    writes the whole of x before each evaluation, passes; the slow mode, which writes one element, does not."""

    @staticmethod
    def forward(ctx, x):
        x.data.copy_(x.data.sin())
        ctx.save_for_backward(x)
        return x.detach().clone()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.cos()


def test_a_pass_that_changed_the_inputs_goes_to_the_slow_mode(monkeypatch, counted):
    start = _x(4, seed=4)
    torch.autograd.gradcheck(SinInPlace.apply, (start.detach().clone().requires_grad_(),), eps=1e-6, atol=1e-5,
                             rtol=1e-3, fast_mode=True)  # passes alone: the guard below is what stops it
    outcomes = []
    for slow_only in (True, False):
        use_modes(monkeypatch, slow_only)
        x = start.detach().clone().requires_grad_()
        outcomes.append(_message(common.gradcheck, SinInPlace.apply, (x,), "SinInPlace"))
    assert outcomes[0] == outcomes[1] and counted["fast_passed"] == 1, (outcomes, counted)


class TwiceWrong(torch.autograd.Function):
    """x ** 3 whose backward is right once but not twice (its second derivative is 3x, not 6x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x * x.detach()


def test_gradgradcheck_draws_the_same_grad_outputs_in_the_slow_mode(monkeypatch):
    x = _x(5, seed=5)
    after = []
    for slow_only in (True, False):
        use_modes(monkeypatch, slow_only)
        torch.manual_seed(11)
        message = _message(common.gradgradcheck, TwiceWrong.apply, (x,), "TwiceWrong")
        after.append((message, torch.rand(3).tolist()))  # the global RNG is where the slow mode alone leaves it
    assert after[0] == after[1], after
