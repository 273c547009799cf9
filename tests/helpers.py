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
