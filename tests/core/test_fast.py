"""The fast tier (`make test-fast`): every check against the reference answers, through the grading pipeline with
the in-process runner (runners.InProcessRunner: the sandbox's rules, without the sandbox); every zoo entry is
graded the same way by tests/core/test_zoo_ledger.py. It proves the checks themselves in well under a minute; the
sandboxed path is proven by tests/more/test_zoo.py (the zoo's ledger through the real sandbox) and the red-team and
fault suites."""

from __future__ import annotations

import pytest

from autograder.engine import grading, notebooks
from helpers import run_in_process

pytestmark = pytest.mark.fast

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}


@pytest.mark.parametrize("assignment", sorted(SOURCES))
def test_reference_passes_every_check(assignment):
    before, tests = grading.plan(SOURCES[assignment], None)
    failing = [(g, o.feedback) for g, o in run_in_process(before, tests) if o.status != "passed"]
    assert not failing
