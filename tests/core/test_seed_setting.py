"""The base seed of the hidden inputs is a setting of the grading configuration (grading.base_seed), not a
constant in the released code: `grade` and `autograde` both read it, and --seed still overrides it."""

from __future__ import annotations

import json
import types

import pytest

from autograder.classroom import autograde as classroom
from autograder import cli
from autograder.engine import grading

CLASS_RUNNER = grading.new_sandbox(for_a_class=True)  # a handle: its root starts on first use

pytestmark = pytest.mark.fast


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_HOME", str(tmp_path))
    monkeypatch.delenv(grading.SEED_VARIABLE, raising=False)
    return tmp_path


def test_first_grading_writes_a_course_seed_that_stays(home):
    seed = grading.base_seed()
    assert json.loads((home / "config.json").read_text())["seed"] == seed
    assert grading.base_seed() == seed == grading.base_seed()


def test_two_courses_draw_different_seeds(tmp_path, monkeypatch):
    monkeypatch.delenv(grading.SEED_VARIABLE, raising=False)
    seeds = set()
    for course in range(4):
        monkeypatch.setenv("AUTOGRADER_HOME", str(tmp_path / f"course{course}"))
        seeds.add(grading.base_seed())
    assert len(seeds) > 1


def test_configured_seed_and_environment(home, monkeypatch):
    (home / "config.json").write_text(json.dumps({"seed": 4242, "other": "kept"}))
    assert grading.base_seed() == 4242
    monkeypatch.setenv(grading.SEED_VARIABLE, "77")
    assert grading.base_seed() == 77
    assert json.loads((home / "config.json").read_text()) == {"seed": 4242, "other": "kept"}


def _capture_grade(monkeypatch) -> dict:
    seen = {}

    class Box:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def grade_submission(submission, sandbox, seed=0, limits=None, autograded=True):
        seen["seed"] = seed
        return types.SimpleNamespace(to_json=lambda: {"notebook": "n", "cells": [], "score": 0, "max_score": 0}), None

    monkeypatch.setattr(grading, "new_sandbox", Box)
    monkeypatch.setattr(grading, "grade_submission", grade_submission)
    monkeypatch.setattr("autograder.engine.notebooks.submission_from_path", lambda *a, **k: None)
    monkeypatch.setattr("autograder.engine.notebooks.read", lambda *a, **k: None)
    return seen


def test_grade_uses_the_setting_and_seed_overrides_it(home, monkeypatch, capsys):
    (home / "config.json").write_text(json.dumps({"seed": 9001}))
    seen = _capture_grade(monkeypatch)
    cli.main(["grade", "any.ipynb", "--json"])
    assert seen["seed"] == 9001
    cli.main(["grade", "any.ipynb", "--json", "--seed", "3"])
    assert seen["seed"] == 3


def test_autograde_uses_the_setting_and_seed_overrides_it(home, monkeypatch, capsys):
    (home / "config.json").write_text(json.dumps({"seed": 9002}))
    seen = {}

    def autograde(**kwargs):
        seen["seed"] = kwargs["seed"]
        return types.SimpleNamespace(graded=[], skipped=0, problems=[], seconds=0.0)

    monkeypatch.setattr(classroom, "autograde", autograde)
    cli.main(["autograde", "--quiet"])
    assert seen["seed"] == 9002
    cli.main(["autograde", "--quiet", "--seed", "5"])
    assert seen["seed"] == 5


def test_autograde_called_directly_reads_the_setting(home, monkeypatch):
    calls = []
    monkeypatch.setattr(grading, "base_seed", lambda: calls.append("read") or 1)

    def stop(*args, **kwargs):
        raise RuntimeError("stop here")

    monkeypatch.setattr(classroom.notebooks, "sources", stop)
    for seed, expected in ((None, ["read"]), (12, [])):
        calls.clear()
        with pytest.raises(RuntimeError, match="stop here"):
            classroom.autograde(CLASS_RUNNER, seed=seed, progress=False)
        assert calls == expected
