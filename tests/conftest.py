"""Shared fixtures: one grading sandbox per test process, and a private grading folder per test."""

from __future__ import annotations

import os

import pytest

from helpers import PY, ROOT  # noqa: F401  (tests import helpers directly: conftest names collide)


# The tiers. `make test` (the README's command, a few minutes): the units, every check against every reference
# answer and zoo entry through the in-process runner, and the sandbox end to end (its levels, and one test per
# family of attack on it). `make test-more`: everything else (the references, zoo and honest answers through
# the real grader, the red team, faults, every notebook run, the classroom, Gradescope, LMS, release, ...).
# `make test-all` is both. A test file that is in neither list is in test-more.
TIER_TEST = {
    # units
    "test_sandbox_units.py", "test_protocol.py", "test_layering.py", "test_check_conventions.py",
    "test_mistakes.py", "test_cell_length.py", "test_notebook_model.py", "test_seed_setting.py",
    "test_front_door.py", "test_confine.py", "test_environment.py", "test_lms_columns.py", "test_deploy_docs.py",
    "test_mirror.py", "test_proxy.py", "test_self_contained.py", "test_adding_an_exercise_guide.py",
    # every check, in process
    "test_fast.py", "test_zoo_scores.py", "test_runners.py",
    # the sandbox end to end
    "test_isolation.py", "test_world.py",
}


def pytest_addoption(parser):
    parser.addoption("--tier", choices=("test", "more", "all"), default="all",
                     help="test: the README's `make test` tier; more: everything else; all: both (default)")


def _tier_of(item) -> str:
    return "test" if item.path.name in TIER_TEST else "more"


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

    with grading.new_sandbox() as box:
        yield box


@pytest.fixture
def grading_home(tmp_path, monkeypatch):
    """A fresh AUTOGRADER_HOME (gradebook, submissions, feedback) for one test."""
    home = tmp_path / "grading"
    home.mkdir()
    monkeypatch.setenv("AUTOGRADER_HOME", str(home))
    return home
