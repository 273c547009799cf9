"""The in-process runner (autograder/engine/runners.py) gives the sandbox's verdicts: a pass, a Mistake's code and
message, a raw exception, an answer cell that raised, and fresh state for every test (a test that changes what a
later test reads changes nothing for it), on a small notebook graded both ways."""

from __future__ import annotations

import pytest

from autograder.engine import grading
from autograder.engine.runners import InProcessRunner
from autograder.engine.sandbox import Graded, Limits, Outcome, Runner, Sandbox

pytestmark = pytest.mark.xdist_group("runners")

SETUP = ("setup:imports", "import torch\nfrom autograder.checks import common as check\nLIMIT = 3\n")
ANSWER = ("answer_square", "def square(x):\n    return x * x\n\n"
                           "calls = [0]\n\ndef bump():\n    calls[0] += 1\n    return calls[0]\n")
TESTS = [
    ("test_passes", "assert square(torch.tensor([3.0])).item() == 9.0\n"),
    ("test_mistake", "if square(torch.tensor([2.0])).item() != 5.0:\n"
                     "    check.fail('wrong-derivative', 'square(2) should be 5 here')\n"),
    ("test_raises", "square('a', 'b')\n"),
    # the first changes the answers' state, a name of the setup and one of its own; the second reads them
    ("test_changes_state", "bump(); bump()\nLIMIT = 99\nleft_over = 1\nassert bump() == 3\n"),
    ("test_reads_state", "assert bump() == 1, f'bump() saw {calls} calls'\nassert LIMIT == 3\n"
                         "assert 'left_over' not in globals()\n"),
]
EXPECTED = {"test_passes": ("passed", ""), "test_mistake": ("failed", "wrong-derivative"),
            "test_raises": ("error", "exception"), "test_changes_state": ("passed", ""),
            "test_reads_state": ("passed", "")}
RAISING = [SETUP, ("answer_late", "def early():\n    return 1\n\nraise ValueError('boom')\n\ndef late():\n"
                                  "    return 2\n")]
RAISING_TESTS = [("test_early", "assert early() == 1\n"), ("test_late", "assert late() == 2\n")]


def verdicts(graded: Graded) -> dict:
    return {grade_id: (o.status, o.mistake, o.feedback) for (grade_id, _), o in zip(TESTS, graded.outcomes)}


def test_the_in_process_runner_maps_each_outcome():
    graded = InProcessRunner().run([SETUP, ANSWER], TESTS, seed=0)
    assert all(type(o) is Outcome for o in graded.outcomes)
    got = verdicts(graded)
    assert {g: v[:2] for g, v in got.items()} == EXPECTED, got
    assert got["test_mistake"][2] == "square(2) should be 5 here"
    assert got["test_raises"][2].startswith("TypeError: "), got["test_raises"]
    assert all(o.details["check_seconds"] >= 0 and "answers" in o.details["phases"] for o in graded.outcomes)


def test_a_test_cannot_change_what_a_later_test_reads_in_either_order():
    backwards = list(reversed(TESTS))
    graded = InProcessRunner().run([SETUP, ANSWER], backwards, seed=0)
    assert [o.status for o in graded.outcomes] == [EXPECTED[g][0] for g, _ in backwards]


def test_an_answer_cell_that_raised_is_the_cause_and_a_note():
    graded = InProcessRunner().run(RAISING, RAISING_TESTS)
    early, late = graded.outcomes
    assert early.status == "passed"
    assert (late.status, late.mistake) == ("error", "exception")
    assert "your answer cell `answer_late` raised an error: ValueError: boom" in late.feedback
    assert len(graded.notes) == 1 and "answer_late" in graded.notes[0]


def test_a_broken_setup_cell_is_the_course_s_fault():
    graded = InProcessRunner().run([("setup:x", "raise RuntimeError('oops')\n"), ANSWER], TESTS[:1])
    assert (graded.outcomes[0].status, graded.outcomes[0].mistake) == ("error", "setup-error")


def test_the_runner_leaves_the_seed_and_the_link_as_it_found_them():
    from autograder.engine import shared

    shared.set_base_seed(11)
    InProcessRunner().run([SETUP, ANSWER], [("test_seed", "assert check.base_seed() == 5\n")], seed=5)
    assert shared.base_seed() == 11 and shared.learner() is None
    shared.set_base_seed(0)


def test_around_test_wraps_the_test_cell_alone():
    from contextlib import contextmanager

    seen = []

    @contextmanager
    def around(grade_id):
        seen.append(grade_id)
        yield

    InProcessRunner(around_test=around).run([SETUP, ANSWER], TESTS[:2])
    assert seen == ["test_passes", "test_mistake"]


def test_the_pipeline_takes_a_runner_and_the_sandbox_is_one():
    assert issubclass(Sandbox, Runner) and issubclass(InProcessRunner, Runner)
    graded = InProcessRunner().run([SETUP, ANSWER], TESTS[:1])
    assert type(graded) is Graded and graded.isolation is None  # no sandbox held it
    with pytest.raises(AttributeError):
        graded.notes = ()  # a run's value is frozen: no step changes what the runner returned
    results = grading.run_tests(InProcessRunner(), [SETUP, ANSWER], [(g, 1.0, s) for g, s in TESTS], 0, Limits())
    assert [r.points for r in results] == [1.0, 0.0, 0.0, 1.0, 1.0]


def test_the_sandbox_gives_the_same_verdicts(sandbox):
    ours = sandbox
    assert verdicts(ours.run([SETUP, ANSWER], TESTS, 0, Limits(seconds_per_test=60))) == \
        verdicts(InProcessRunner().run([SETUP, ANSWER], TESTS, 0))
    through = ours.run(RAISING, RAISING_TESTS, 0, Limits(seconds_per_test=60))
    here = InProcessRunner().run(RAISING, RAISING_TESTS)
    assert [(o.status, o.mistake, o.feedback) for o in through.outcomes] == \
        [(o.status, o.mistake, o.feedback) for o in here.outcomes]
    assert through.notes == here.notes
    assert through.isolation is not None and here.isolation is None  # once per notebook, from the sandbox alone


def test_every_grading_entry_point_requires_its_runner():
    """No entry point makes a sandbox of its own that nobody closes: the caller passes the runner it made."""
    import inspect

    from autograder.classroom import autograde
    from autograder.classroom.gradescope import levels as gradescope_levels
    from autograder.maintain import release

    entry_points = [grading.grade_text, grading.grade_path, grading.grade_submission, grading.reference_report,
                    grading.run_tests, autograde.autograde, autograde.grade_payload,
                    gradescope_levels.grade_with_fallback, release.verify_solutions, release.release]
    for function in entry_points:
        runner = inspect.signature(function).parameters["runner"]
        assert runner.default is inspect.Parameter.empty, f"{function.__qualname__}: a runner by default"
    assert "runner" in inspect.signature(grading.Grading).parameters
    assert inspect.signature(grading.Grading).parameters["runner"].default is inspect.Parameter.empty
