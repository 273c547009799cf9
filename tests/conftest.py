"""Shared fixtures: one grading sandbox per test process, and a private grading folder per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import PY, ROOT  # noqa: F401  (tests import helpers directly: conftest names collide)


# The tiers are folders. tests/core/ is `make test` (the README's command, a few minutes): the units, every check
# against every reference answer and zoo entry through the in-process runner, and the sandbox end to end (its
# levels, and one test per family of attack on it). tests/more/ is `make test-more`: everything else (the
# references, zoo and honest answers through the real grader, the red team, faults, every notebook run, the
# classroom, Gradescope, LMS, release, ...). tests/browser/ and tests/classroom_hub/ are the browser and JupyterHub
# suites. `make test-all` is the whole folder.
TIERS = {"test": "core", "more": "more"}


def pytest_addoption(parser):
    parser.addoption("--tier", choices=("test", "more", "all"), default="all",
                     help="test: tests/core/ (make test); more: every other folder; all: both (default)")


def _tier_of(item) -> str:
    return "test" if TIERS["test"] in item.path.relative_to(Path(__file__).parent).parts[:1] else "more"


def pytest_collection_modifyitems(config, items):
    tier = config.getoption("--tier")
    if tier != "all":
        kept = [item for item in items if _tier_of(item) == tier]
        config.hook.pytest_deselected(items=[item for item in items if _tier_of(item) != tier])
        items[:] = kept
    # Browser tests need Chromium and take minutes: only `make test-browser` (BROWSER_TESTS=1) runs them.
    # Classroom tests create Linux accounts and start JupyterHub: only `make test-classroom`
    # (CLASSROOM_TESTS=1) runs them.
    # PostgreSQL tests install and start a server: only `make test-postgres` (POSTGRES_TESTS=1) runs them.
    for marker, variable, target in (("browser", "BROWSER_TESTS", "test-browser"),
                                     ("classroom", "CLASSROOM_TESTS", "test-classroom"),
                                     ("postgres", "POSTGRES_TESTS", "test-postgres")):
        if os.environ.get(variable) == "1":
            continue
        skip = pytest.mark.skip(reason=f"{marker} test: run with `make {target}`")
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def sandbox():
    from autograder.engine import grading

    with grading.new_sandbox(for_a_class=True) as box:
        yield box


@pytest.fixture
def grading_home(tmp_path, monkeypatch):
    """A fresh AUTOGRADER_HOME (gradebook, submissions, feedback) for one test."""
    home = tmp_path / "grading"
    home.mkdir()
    monkeypatch.setenv("AUTOGRADER_HOME", str(home))
    return home
