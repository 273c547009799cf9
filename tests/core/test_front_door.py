"""One front door: `grade` and `autograde` read each submission once, parse it once, match it once and extract
its answers once (a `notebooks.Submission` made once and handed on); the instructor's notebooks are parsed once
per process; no judge is forked only to say hello, and `grade` builds no autograded notebook it would drop."""

from __future__ import annotations

import builtins
import io
import json
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import cli
from autograder.engine import grading, notebooks
from autograder.engine.sandbox import handle

from helpers import write_student

CLASS_RUNNER = grading.new_sandbox(for_a_class=True)  # a handle: its root starts on first use

pytestmark = pytest.mark.xdist_group("front-door")


class Counts:
    """Opens of one file, and calls of the notebook steps, while a command runs in this process."""

    def __init__(self, monkeypatch, watched: Path):
        self.opens = 0
        self.calls: dict = {}
        self.parsed: list = []  # the names parse() was given
        real_open = io.open

        def counting_open(file, *args, **kwargs):
            try:
                if Path(file).resolve() == watched.resolve():
                    self.opens += 1
            except (TypeError, OSError):
                pass
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", counting_open)
        monkeypatch.setattr(io, "open", counting_open)
        for module, name in [(notebooks, "parse"), (notebooks, "match_source"), (notebooks, "submitted_answers"),
                             (nbformat, "reads"), (grading, "autograded_notebook"), (handle.Sandbox, "exchange")]:
            self._count(monkeypatch, module, name)

    def _count(self, monkeypatch, owner, name):
        real = getattr(owner, name)

        def counted(*args, **kwargs):
            self.calls[name] = self.calls.get(name, 0) + 1
            if name == "parse":
                self.parsed.append(str(args[1] if len(args) > 1 else kwargs.get("name", "")))
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


def test_grade_reads_parses_matches_and_extracts_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUTOGRADER_HOME", str(tmp_path / "home"))
    path = write_student(tmp_path / "01_square.ipynb", "01_square")
    notebooks.sources()  # the instructor's notebooks, parsed before counting (once per process, test below)
    counts = Counts(monkeypatch, path)
    assert cli.main(["grade", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["score"] == 3
    assert counts.opens == 1, counts.opens
    assert counts.calls.get("parse") == 1 and counts.calls.get("match_source") == 1, counts.calls
    assert counts.calls.get("submitted_answers") == 1, counts.calls
    assert counts.calls.get("reads", 0) == 0, counts.calls           # the JSON is decoded once, by parse
    assert counts.calls.get("exchange") == 1, counts.calls           # one judge: no hello
    assert counts.calls.get("autograded_notebook", 0) == 0, counts.calls


def test_the_instructor_notebooks_are_parsed_once_per_process_and_again_when_one_changes(tmp_path):
    for name in ("01_a", "02_b"):
        (tmp_path / name).mkdir()
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
        (tmp_path / name / f"{name}.ipynb").write_text(nbformat.writes(nb))
    first = notebooks.sources(tmp_path)
    again = notebooks.sources(tmp_path)
    assert [s.notebook for s in again] == [s.notebook for s in first]
    assert all(a.notebook is b.notebook for a, b in zip(first, again))  # not parsed again
    changed = tmp_path / "02_b" / "02_b.ipynb"
    changed.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("y = 22")])))
    third = notebooks.sources(tmp_path)
    assert third[1].notebook.cells[0].source == "y = 22" and third[0].notebook is first[0].notebook


def test_autograde_reads_each_submission_once(grading_home, monkeypatch):
    from autograder.classroom import autograde as classroom

    path = write_student(grading_home / "submitted" / "ada" / "01_square" / "01_square.ipynb", "01_square")
    counts = Counts(monkeypatch, path)
    switch_interval = sys.getswitchinterval()
    result = classroom.autograde(CLASS_RUNNER, assignment="01_square", progress=False)
    assert [r["score"] for r in result.graded] == [3]
    assert sys.getswitchinterval() == switch_interval  # (autograde shortens it while it grades, then puts it back)
    assert counts.opens == 1, counts.opens
    assert counts.parsed.count("01_square.ipynb") == 1, counts.parsed  # (a worker parses the sources once too)
