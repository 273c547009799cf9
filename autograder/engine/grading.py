"""Grade one submission: the steps, in order, each small and tested on its own.

    read + validate, match its instructor source, extract the answers (notebooks.Submission, once)
    then PIPELINE:  plan_step (merge: answers from the submission, everything else from the source)
                    -> run_step (every test cell, through a runner: the sandbox)  -> isolation_step
                    -> missing_answers_step  -> report_step (score)  -> autograded_step (nbgrader's view)

The merge is what makes edits outside answer cells pointless: test cells, their points and the setup
come from the instructor's copy, so a deleted, edited or re-pointed test cell changes nothing.

The tests run through a `Runner` (sandbox/verdicts.py), which every entry point requires of its caller, who made
it and closes it. The CLI's `grade` and `autograde`, Gradescope and the release pass the sandbox (`new_sandbox`):
a learner's code runs nowhere else. `runners.InProcessRunner` runs the same pipeline in this process, for trusted
code only (the reference answers, the zoo in the fast tier, the bench's floor, the probe share).
"""

from __future__ import annotations

import copy
import hashlib
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from autograder.engine import notebooks
from autograder import paths
from autograder.engine.notebooks import NotebookError, Source, nbgrader_meta, role, strip_markers
from autograder.engine.sandbox import Graded, Isolation, Limits, Outcome, Runner, Sandbox


@dataclass
class CellResult:
    grade_id: str
    points: float
    max_points: float
    status: str           # passed | failed | error | timeout
    feedback: str
    mistake: str = ""
    seconds: float = 0.0          # the whole test: fork, setup, answers, check
    check_seconds: float = 0.0    # the test cell alone
    memory_mb: float = 0.0        # peak resident memory of a grading process so far
    phases: dict = field(default_factory=dict)  # seconds per step inside the test's process (benchmarks)
    round_trips: int = 0          # requests the test's judge sent to the learner's process (benchmarks)

    @classmethod
    def from_outcome(cls, grade_id: str, points: float, outcome: Outcome) -> "CellResult":
        """A test's Outcome, scored: its points if it passed."""
        passed = outcome.status == "passed"
        return cls(grade_id, points if passed else 0.0, points, outcome.status,
                   "passed" if passed else outcome.feedback, outcome.mistake, outcome.seconds,
                   outcome.details.get("check_seconds", 0.0), outcome.details.get("child_maxrss_mb", 0.0),
                   _phases(outcome), _count(outcome.details.get("round_trips")))


@dataclass
class Report:
    notebook: str
    assignment: str
    score: float
    max_score: float
    cells: list[CellResult] = field(default_factory=list)
    seconds: float = 0.0
    sha256: str = ""
    notes: list = field(default_factory=list)   # what the learner should know although no test failed
    isolation: Isolation | None = None  # the layers that held the learner's code (None: no sandbox did)

    def to_json(self) -> dict:
        """The CLI's JSON contract: notebook, score, max_score, cells[grade_id, points, max_points, status,
        feedback]; everything else is an extension."""
        return {
            "notebook": self.notebook,
            "score": self.score,
            "max_score": self.max_score,
            "cells": [asdict(c) for c in self.cells],
            "assignment": self.assignment,
            "seconds": round(self.seconds, 3),
            "sha256": self.sha256,
            "notes": list(self.notes),
            "isolation": self.isolation.to_wire() if self.isolation is not None else {},
        }


# ------------------------------------------------------------------------------------------ the steps

def plan(source: Source, submission, answers: dict | None = None) -> tuple[list, list]:
    """(cells to run before each test, tests). Answers come from the submission (`answers` if already
    extracted), all else from the source; submission None: the source's own reference answers.

    An answer cell missing from the submission runs as an empty cell: its tests then fail with
    "not defined", which is the truth.
    """
    if answers is None:
        answers = notebooks.submitted_answers(submission) if submission is not None else {}
    before, tests = [], []
    for cell in source.notebook.cells:
        kind = role(cell)
        meta = nbgrader_meta(cell)
        if kind == "setup":
            before.append((f"setup:{meta.get('grade_id', 'setup')}", cell.source))
        elif kind == "answer":
            grade_id = meta["grade_id"]
            text = answers.get(grade_id) if submission is not None else strip_markers(cell.source)
            before.append((grade_id, text if text is not None else ""))
        elif kind == "test":
            tests.append((meta["grade_id"], float(meta.get("points", 0)), strip_markers(cell.source)))
    return before, tests


def missing_answers(source: Source, submission, answers: dict | None = None) -> list[str]:
    present = notebooks.submitted_answers(submission) if answers is None else answers
    return [g for g in source.grade_ids("answer") if g not in present]


def run_tests(runner: Runner, before: list, tests: list, seed: int, limits: Limits) -> list[CellResult]:
    """Every test of one notebook through `runner`, each on a fresh copy of the answers' state."""
    return results_of(tests, runner.run(before, [(grade_id, source) for grade_id, _, source in tests], seed, limits))


def results_of(tests: list, graded: Graded) -> list[CellResult]:
    """A CellResult per test [(grade_id, points, source)] from its Outcome."""
    return [CellResult.from_outcome(grade_id, points, outcome) for (grade_id, points, _), outcome
            in zip(tests, graded.outcomes)]


def _phases(outcome: Outcome) -> dict:
    phases = outcome.details.get("phases")
    if type(phases) is not dict:
        return {}
    return {str(k): round(float(v), 4) for k, v in phases.items() if isinstance(v, (int, float))}


def _count(value) -> int:
    return value if type(value) is int and value >= 0 else 0


def autograded_notebook(source: Source, submission, results: list[CellResult], answers: dict | None = None):
    """The submission as nbgrader's autograde leaves it: source's locked cells, the student's answers,
    and in each test cell an output (an error output for a failed test) so that nbgrader's own
    `SaveAutoGrades` and `generate_feedback` give the same scores and show our feedback."""
    answers = notebooks.submitted_answers(submission) if answers is None else answers
    by_id = {r.grade_id: r for r in results}
    nb = copy.deepcopy(source.notebook)
    for cell in nb.cells:
        meta = nbgrader_meta(cell)
        kind = role(cell)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        if kind == "answer":
            cell.source = answers.get(meta["grade_id"], "")
        elif kind == "test":
            result = by_id.get(meta["grade_id"])
            if result is None:
                continue
            if result.status == "passed":
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="passed\n")]
            else:
                cell.outputs = [nbformat.v4.new_output(
                    "error", ename=f"Test {result.status}", evalue=result.feedback,
                    traceback=[f"{result.status.upper()}: {result.feedback}"])]
    return nb


# --------------------------------------------------------------------------------------- entry points

def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def grade_text(text: str, name: str, runner: Runner, seed: int = 0,
               limits: Limits | None = None, candidates: list[Source] | None = None) -> tuple[Report, object]:
    """Grade a notebook given as text. Returns the report and the autograded notebook."""
    return grade_submission(notebooks.submission_from_text(text, name, candidates), runner, seed, limits)


@dataclass
class Grading:
    """What one submission's grading carries from step to step (the steps of `PIPELINE`, in order)."""
    submission: notebooks.Submission
    runner: Runner
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    autograded: bool = True
    started: float = field(default_factory=time.monotonic)
    before: list = field(default_factory=list)      # setup and answer cells, run before each test
    tests: list = field(default_factory=list)       # (grade_id, points, source)
    results: list = field(default_factory=list)     # CellResult per test
    notes: list = field(default_factory=list)
    isolation: Isolation | None = None
    report: Report | None = None
    notebook: object = None                         # the autograded notebook (nbgrader's view), if asked for


def plan_step(g: Grading) -> None:
    """The cells to run: the submission's answers, everything else from the instructor's source."""
    g.before, g.tests = plan(g.submission.source, g.submission.notebook, g.submission.answers)


def run_step(g: Grading) -> None:
    """Every test through the runner (the sandbox unless a trusted caller passed another)."""
    graded = g.runner.run(g.before, [(grade_id, source) for grade_id, _, source in g.tests], g.seed, g.limits)
    g.results = results_of(g.tests, graded)
    g.notes.extend(graded.notes)
    g.isolation = graded.isolation


def isolation_step(g: Grading) -> None:
    """A grade under weaker isolation than a class is graded with says so."""
    if g.isolation is not None and not g.isolation.strong:
        g.notes.append(WEAK_ISOLATION_NOTE.format(layers=g.isolation.describe()))


def missing_answers_step(g: Grading) -> None:
    """A failed test of a notebook that lost an answer cell names the cell (the likeliest cause)."""
    missing = missing_answers(g.submission.source, g.submission.notebook, g.submission.answers)
    for result in g.results:
        if result.status != "passed" and missing:
            result.feedback += (f" (Your notebook has no answer cell {', '.join(missing)}: was it deleted, or "
                                "its metadata changed? Copy it back from the course notebook.)")


def report_step(g: Grading) -> None:
    g.report = Report(Path(g.submission.name).name, g.submission.source.assignment, sum(r.points for r in g.results),
                      sum(r.max_points for r in g.results), g.results, time.monotonic() - g.started,
                      g.submission.sha256, g.notes, g.isolation)


def autograded_step(g: Grading) -> None:
    """nbgrader's view of the graded notebook, unless the caller has no use for one (the self-check)."""
    if g.autograded:
        g.notebook = autograded_notebook(g.submission.source, g.submission.notebook, g.results, g.submission.answers)


# One submission, already read, parsed, matched and extracted once (notebooks.Submission), to its verdict.
PIPELINE = (plan_step, run_step, isolation_step, missing_answers_step, report_step, autograded_step)


def grade_submission(submission: notebooks.Submission, runner: Runner, seed: int = 0,
                     limits: Limits | None = None, autograded: bool = True) -> tuple[Report, object]:
    """Grade a Submission through `runner`: the steps of PIPELINE, in order. Returns the
    report and, with `autograded`, the autograded notebook (else None: the self-check has no use for one)."""
    grading = Grading(submission, runner, seed, limits or Limits(), autograded)
    for step in PIPELINE:
        step(grading)
    return grading.report, grading.notebook


WEAK_ISOLATION_NOTE = ("graded with weaker isolation than a class is graded with ({layers}): the verdicts are "
                       "computed as always, but take this grade as a preview of the one your instructor records.")


def grade_path(path: str | Path, runner: Runner, seed: int = 0, limits: Limits | None = None):
    """The clear errors first (missing file, folder, unreadable, too large, not the course's): NotebookError."""
    return grade_submission(notebooks.submission_from_path(path), runner, seed, limits)


def protected_paths() -> list[Path]:
    """What student code may not read while graded: the answers, the hidden tests, the zoo, the gradebook, and
    the answer keys (notebook 00's decisions, notebook 15's causes)."""
    return [paths.SOLUTIONS, paths.ZOO, paths.grading_home(), paths.ROOT / ".git", *paths.ANSWER_KEYS.values()]


SEED_VARIABLE = "AUTOGRADER_SEED"


def base_seed() -> int:
    """The base seed of the hidden tests' random inputs: a setting of the grading configuration, so the inputs
    cannot be computed from the released code. `AUTOGRADER_SEED` if set; else the "seed" of the course's
    grading configuration, <grading home>/config.json, which the first grading writes with a random value
    (one per course: every `grade` and `autograde` of that course then draws the same inputs)."""
    import json
    import os
    import secrets

    if os.environ.get(SEED_VARIABLE, "").strip():
        return int(os.environ[SEED_VARIABLE])
    config = paths.grading_home() / "config.json"
    try:
        settings = json.loads(config.read_text(encoding="utf-8"))
    except FileNotFoundError:
        settings = {}
    if type(settings.get("seed")) is not int:
        settings["seed"] = secrets.randbelow(2**31)
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
    return settings["seed"]


def new_sandbox(for_a_class: bool = False, own_session: bool = False, warm_ups: tuple = ()) -> Sandbox:
    """The grading sandbox. For a class (many notebooks) its root pays once what makes every test cheaper
    (root.prepare); a single notebook's grade starts sooner instead. A kernel's self-check root runs in a session
    of its own and pays once the warm-ups its notebook's tests need (handle.RootKind)."""
    return Sandbox(protected=protected_paths(), for_a_class=for_a_class, own_session=own_session, warm_ups=warm_ups)


def reference_report(source: Source, runner: Runner, seed: int = 0,
                     limits: Limits | None = None) -> Report:
    """Grade the instructor's own solutions (markers stripped): must be full marks."""
    before, tests = plan(source, None)
    results = run_tests(runner, before, tests, seed, limits or Limits())
    return Report(source.path.name, source.assignment, sum(r.points for r in results),
                  sum(r.max_points for r in results), results)


__all__ = ["Report", "CellResult", "grade_text", "grade_path", "grade_submission", "reference_report", "new_sandbox",
           "NotebookError"]
