"""Every test starts from the same judge, though tests run in the notebook's judge process rather than a fork
of it each (judge.py `_test_here`, judge_state.py): what one test changes or leaves open, the next does not see;
what cannot be put back ends the notebook's later tests as the grader's error; and our own timer ends a test
that runs too long."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest
import torch

from autograder.engine.sandbox import Limits, judge_state

ROOT = Path(__file__).resolve().parents[2]
SETUP = [("setup:setup_1", "import torch\nimport warnings\nSHARED = []\ntorch.manual_seed(0)\n"),
         ("answer_Square", "import torch\nclass Square(torch.autograd.Function):\n"
                           "    @staticmethod\n    def forward(ctx, x):\n        ctx.save_for_backward(x)\n"
                           "        return x * x\n    @staticmethod\n    def backward(ctx, g):\n"
                           "        x, = ctx.saved_tensors\n        return 2 * x * g\n")]
# What a test may change in the judge, each change in its own test cell (which then fails on purpose).
CHANGES = {
    "default dtype": "torch.set_default_dtype(torch.float64)",
    "grad mode": "torch.set_grad_enabled(False)",
    "global generator": "torch.manual_seed(123); torch.rand(5)",
    "python random": "import random; random.seed(5)",
    "numpy random": "import numpy as np; np.random.seed(5)",
    "warning filters": "warnings.simplefilter('error')",
    "print options": "torch.set_printoptions(precision=12)",
    "anomaly mode": "torch.autograd.set_detect_anomaly(True)",
    "a setup cell's object": "SHARED.append(1)",
    "a learner name rebound": "Square = None",
}
FRESH = """
import random, warnings
import numpy as np
assert torch.get_default_dtype() is torch.float32
assert torch.is_grad_enabled()
assert torch.equal(torch.rand(3), torch.rand(3, generator=torch.Generator().manual_seed(0)))
assert not any(f[0] == 'error' and f[2] is Warning for f in warnings.filters), warnings.filters
assert torch._tensor_str.PRINT_OPTS.precision == 4
assert not torch.is_anomaly_enabled()
assert SHARED == []
x = torch.tensor([3.0], requires_grad=True)
assert Square.apply(x).item() == 9.0
raise AssertionError(f"fresh: {hash(random.getstate())} {hash(tuple(np.random.get_state()[1].tolist()))}")
"""


def grade(sandbox, tests, **limits):
    return sandbox.run(SETUP, tests, limits=Limits(**limits)).outcomes


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_what_a_test_changes_the_next_does_not_see(sandbox, change):
    outcomes = grade(sandbox, [("test_fresh_before", FRESH),
                               ("test_change", CHANGES[change] + "\nraise AssertionError('changed')"),
                               ("test_fresh_after", FRESH)])
    assert [o.feedback for o in outcomes][1:] == ["changed", outcomes[0].feedback], [o.feedback for o in outcomes]
    assert outcomes[0].feedback.startswith("fresh: "), outcomes[0].feedback  # (python's and numpy's generators too)


LEFT_OPEN = {
    "a torch function mode": "from torch.overrides import TorchFunctionMode\nTorchFunctionMode().__enter__()",
    "a dispatch mode": "from torch.utils._python_dispatch import TorchDispatchMode\n"
                       "class Passing(TorchDispatchMode):\n"
                       "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
                       "        return func(*args, **(kwargs or {}))\n"
                       "Passing().__enter__()",
    "saved-tensor hooks": "torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()",
    "a forward-AD level": "torch.autograd.forward_ad.dual_level().__enter__()",
    "inference mode": "LEFT = torch.inference_mode()\nLEFT.__enter__()",
}
CLEAN = """
import torch.autograd.forward_ad as fwAD
assert torch._C._len_torch_function_stack() == 0 and torch._C._len_torch_dispatch_stack() == 0
assert torch._C._autograd._top_saved_tensors_default_hooks(True) is None
assert fwAD._current_level == -1 and not torch.is_inference_mode_enabled()
x = torch.ones(2, requires_grad=True)
assert torch.equal(torch.autograd.grad(Square.apply(x).sum(), x)[0], 2 * x)
"""


@pytest.mark.parametrize("left", sorted(LEFT_OPEN))
def test_what_a_test_leaves_open_is_closed_before_the_next(sandbox, left):
    outcomes = grade(sandbox, [("test_left_open", LEFT_OPEN[left]), ("test_after", CLEAN), ("test_later", CLEAN)])
    assert [o.status for o in outcomes] == ["passed"] * 3, [o.feedback for o in outcomes]


def test_a_state_that_cannot_be_put_back_ends_the_notebook_as_the_graders_error(sandbox):
    held = "torch.HELD = torch.inference_mode()\ntorch.HELD.__enter__()"  # (a module keeps its guard alive)
    outcomes = grade(sandbox, [("test_holds", held), ("test_after", CLEAN), ("test_later", "pass")])
    assert outcomes[0].status == "passed"
    for outcome in outcomes[1:]:
        assert (outcome.status, outcome.mistake) == ("error", "grader-error"), outcome.feedback
        assert "test_holds" in outcome.feedback and "inference mode" in outcome.feedback, outcome.feedback


@pytest.mark.parametrize("loop", ["while True:\n    pass\n",                       # the judge's own Python
                                  "import time\nwhile True:\n    time.sleep(0.01)\n",  # asleep in C
                                  "while True:\n    Square.apply(torch.ones(2))\n"])   # waiting on the learner too
def test_our_timer_ends_a_test_that_runs_too_long_in_the_judge(sandbox, loop):
    outcomes = grade(sandbox, [("test_loops", loop), ("test_after", CLEAN)], seconds_per_test=1.5)
    assert [o.status for o in outcomes] == ["timeout", "passed"], [o.feedback for o in outcomes]
    assert outcomes[0].seconds < 5


def test_a_learner_exception_named_like_our_timer_is_no_timeout(sandbox):
    answer = ("class OutOfTime(Exception):\n    pass\n"
              "def Square(x):\n    raise OutOfTime('not ours')\n")
    outcomes = sandbox.run([SETUP[0], ("answer_Square", answer)],
                             [("test_raises", "Square(torch.ones(1))"), ("test_next", "pass")]).outcomes
    assert outcomes[0].status == "error" and "OutOfTime" in outcomes[0].feedback, outcomes[0].feedback
    assert outcomes[1].status == "passed"


def test_the_baseline_puts_back_what_it_recorded_and_names_what_it_cannot():
    baseline = judge_state.Baseline()
    before = torch.rand(4)
    torch.set_rng_state(baseline.generators[0])
    dtype, filters = torch.get_default_dtype(), list(warnings.filters)
    try:
        torch.set_default_dtype(torch.float64)
        warnings.simplefilter("error")
        torch.rand(7)
        torch.autograd.forward_ad.dual_level().__enter__()  # left open: restore closes it
        held = torch.inference_mode()
        held.__enter__()
        try:
            assert baseline.restore() == ["inference mode"]
        finally:
            held.__exit__(None, None, None)
        assert baseline.restore() == []
        assert torch.autograd.forward_ad._current_level == -1
        assert torch.get_default_dtype() is dtype and warnings.filters == filters
        assert torch.equal(torch.rand(4), before)
    finally:
        torch.set_default_dtype(dtype)
        warnings.filters[:] = filters


def test_no_check_catches_base_exceptions():
    """The judge's timer interrupts a test with a BaseException: a check that caught those could outrun it."""
    for path in sorted((ROOT / "autograder" / "checks").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ExceptHandler):
                caught = node.type
                names = [caught] if not isinstance(caught, ast.Tuple) else caught.elts
                assert caught is not None, f"{path.name}:{node.lineno} catches everything"
                assert not any(isinstance(n, ast.Name) and n.id in ("BaseException", "OutOfTime") for n in names), \
                    f"{path.name}:{node.lineno} catches BaseException"
