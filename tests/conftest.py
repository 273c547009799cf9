"""Shared fixtures: one grading sandbox per test process, and a private grading folder per test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def pytest_collection_modifyitems(config, items):
    # Browser tests need Chromium and take minutes: only `make test-browser` (BROWSER_TESTS=1) runs them.
    if os.environ.get("BROWSER_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="browser test: run with `make test-browser`")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def sandbox():
    from autograder import grading

    with grading.new_sandbox() as box:
        yield box


@pytest.fixture
def grading_home(tmp_path, monkeypatch):
    """A fresh AUTOGRADER_HOME (gradebook, submissions, feedback) for one test."""
    home = tmp_path / "grading"
    home.mkdir()
    monkeypatch.setenv("AUTOGRADER_HOME", str(home))
    return home


def run_cli(*args, cwd=None, env=None, timeout=600):
    """Run `python -m autograder ...` as a user would."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([PY, "-m", "autograder", *args], capture_output=True, text=True, cwd=cwd,
                          env=full_env, timeout=timeout)


def write_student(path: Path, assignment: str, answers: dict | None = None, fill: bool = True) -> Path:
    import nbformat

    from autograder.samples import student_notebook

    _, nb = student_notebook(assignment, answers, fill=fill)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path
