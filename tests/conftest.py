"""Shared fixtures: one grading sandbox per test process, and a private grading folder per test."""

from __future__ import annotations

import os

import pytest

from helpers import PY, ROOT  # noqa: F401  (tests import helpers directly: conftest names collide)


def pytest_collection_modifyitems(config, items):
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
