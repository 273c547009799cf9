"""No flaky check: the reference answers pass every test on 30 consecutive gradings with different random
inputs (the grader shifts every check's seed on each run). Graded by the pipeline in this process
(runners.InProcessRunner) for speed: the seeds, not the sandbox, are under test here (test_zoo.py grades the
reference through the sandbox)."""

import pytest
import torch

from autograder.engine import grading, notebooks
from autograder.engine.runners import InProcessRunner
from autograder.engine.sandbox import Limits

SOURCES = {s.assignment: s for s in notebooks.sources()}
SEEDS = range(1, 31)
SLOW_TEST_SECONDS = 2.0   # tests this slow (compile, export) are deterministic; three seeds suffice
torch.set_num_threads(1)  # as in the grader: tiny tensors, and two test processes share two cores


@pytest.mark.slow
@pytest.mark.parametrize("assignment", sorted(SOURCES))
def test_reference_passes_thirty_seeds(assignment):
    before, tests = grading.plan(SOURCES[assignment], None)
    runner = InProcessRunner()
    failures = []
    for test in tests:
        for i, seed in enumerate(SEEDS):
            [result] = grading.run_tests(runner, before, [test], seed, Limits())
            if result.status != "passed":
                failures.append(f"{result.grade_id} seed {seed}: {result.feedback}")
                break
            if i >= 2 and result.check_seconds > SLOW_TEST_SECONDS:
                break
    assert not failures, failures
