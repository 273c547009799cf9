"""Helpers tests import by name (`from helpers import ...`): conftest.py files are not importable
reliably, since tests/browser has its own conftest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def run_cli(*args, cwd=None, env=None, timeout=600):
    """Run `python -m autograder ...` as a user would."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([PY, "-m", "autograder", *args], capture_output=True, text=True, cwd=cwd,
                          env=full_env, timeout=timeout)


def write_student(path: Path, assignment: str, answers: dict | None = None, fill: bool = True) -> Path:
    import nbformat

    from autograder.maintain.samples import student_notebook

    _, nb = student_notebook(assignment, answers, fill=fill)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


# A correct Square answer cell: the base that fault and red-team cases add their extra code to.
SQUARE = """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
"""


def run_in_process(before: list, tests: list) -> list:
    """(grade_id, CellResult) for each test, graded by the pipeline in this process (seed 7): the in-process
    runner, for the course's own answers and the zoo (trusted code), in the tiers that prove the checks."""
    from autograder.engine import grading
    from autograder.engine.runners import InProcessRunner
    from autograder.engine.sandbox import Limits

    return [(r.grade_id, r) for r in grading.run_tests(InProcessRunner(), before, tests, 7, Limits())]


def cells_about(source, exercise):
    """The test cells of one exercise of a source notebook (all of them if none is named for it)."""
    from autograder.engine import grading

    _, tests = grading.plan(source, None)
    return [t for t in tests if t[0].startswith(f"test_{exercise}_")] or tests


def sampled(entries: list, exercise_of, every: int) -> list:
    """Every exercise's first entry, then every `every`-th of the rest (in the stored order: the same sample each
    run): each exercise's checks meet a wrong and an honest answer, at a fraction of the cost of all of them."""
    taken, seen = [], set()
    for k, entry in enumerate(entries):
        if exercise_of(entry) not in seen or k % every == 0:
            taken.append(entry)
            seen.add(exercise_of(entry))
    return taken
