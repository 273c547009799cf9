"""The fast tier (`make test-fast`): every check against the reference answers and every zoo entry, through
the grading pipeline with the in-process runner (runners.InProcessRunner: the sandbox's rules, without the
sandbox). It proves the checks themselves (a reference passes, each wrong answer loses points with the
feedback that names it) in well under a minute; the sandboxed path is proven separately by one smoke test per
notebook (tests/more/test_zoo.py) and the red-team and fault suites."""

from __future__ import annotations

import pytest

from autograder.engine import grading, notebooks
from autograder.maintain import samples
from helpers import cells_about, run_in_process

pytestmark = pytest.mark.fast

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
ENTRIES = samples.zoo()


@pytest.mark.parametrize("assignment", sorted(SOURCES))
def test_reference_passes_every_check(assignment):
    before, tests = grading.plan(SOURCES[assignment], None)
    failing = [(g, o.feedback) for g, o in run_in_process(before, tests) if o.status != "passed"]
    assert not failing


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.exercise}/{e.name}" for e in ENTRIES])
def test_zoo_entry_loses_points_with_named_feedback(entry):
    source = EXERCISE_TO_SOURCE[entry.exercise]
    _, nb = samples.student_notebook(source.assignment, {entry.exercise: entry.source})
    before, _ = grading.plan(source, nb)
    lost = [o for _, o in run_in_process(before, cells_about(source, entry.exercise)) if o.status != "passed"]
    assert lost, f"{entry.path.name} ({entry.mistake}) passed every check"
    feedback = " | ".join(o.feedback for o in lost)
    assert entry.feedback.lower() in feedback.lower(), feedback
    codes = {o.mistake for o in lost}
    assert entry.codes and set(entry.codes) <= codes, (
        f"{entry.path.name}: its `# code:` header names {entry.codes}, the failing tests gave {sorted(codes)}")
