"""Notebook 15's feedback names the rule, never the reference: no message any of its zoo entries receives contains a
stretch of a reference answer's code (20 characters, spaces ignored) that the notebook's own setup cells (the broken
Functions, which the learner has) do not already show."""

from __future__ import annotations

import re

import pytest

from autograder.checks import debugging
from autograder.engine import grading, notebooks
from autograder.maintain import samples
from helpers import run_in_process

SOURCE = next(s for s in notebooks.sources() if s.assignment == "15_debugging")
ENTRIES = [e for e in samples.zoo() if e.exercise in debugging.EXERCISES]
STRETCH = 20


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def given() -> str:
    """Everything the learner is handed: the setup and demonstration cells, squeezed."""
    return "".join(squeezed(c.source) for c in SOURCE.notebook.cells
                   if c.cell_type == "code" and notebooks.role(c) not in ("answer", "test"))


def answer_stretches() -> set[str]:
    """Every 20-character stretch of the reference answers' code lines (comments and the causes dropped) the learner
    is not given."""
    shown, found = given(), set()
    for text in samples.reference_answers(SOURCE).values():
        for line in text.splitlines():
            if line.startswith("CAUSE_"):
                continue  # a key of the printed table CAUSES: the unknown-cause message lists them all
            code = squeezed(line.split("#", 1)[0])
            found |= {code[i:i + STRETCH] for i in range(len(code) - STRETCH + 1)} - {""}
    return {s for s in found if s not in shown}


STRETCHES = answer_stretches()


def test_the_reference_has_stretches_to_look_for():
    assert len(STRETCHES) > 50 and any("x==0,0.0,slope" in s for s in STRETCHES)


def test_the_check_sees_a_printed_reference_line():
    line = next(l for l in samples.reference_answers(SOURCE)["answer_Sinc"].splitlines() if "0.0, slope" in l)
    assert any(s in squeezed(f"Hint: write {line}") for s in STRETCHES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.exercise}/{e.name}" for e in ENTRIES])
def test_no_feedback_prints_the_reference(entry):
    _, nb = samples.student_notebook(SOURCE.assignment, {entry.exercise: entry.source})
    before, tests = grading.plan(SOURCE, nb)
    tests = [t for t in tests if t[0].startswith(f"test_{entry.exercise}_")]
    leaked = {g: sorted(s for s in STRETCHES if s in squeezed(r.feedback))[:3]
              for g, r in run_in_process(before, tests) if r.status != "passed"}
    assert not any(leaked.values()), leaked
