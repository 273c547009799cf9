"""The CLI as scripts and terminals use it: a pipe closed early, a log that is no terminal, a terminal of 100
columns, a bad zip, the wrong Python for `make setup`, times said as people say them."""

import glob
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from helpers import ROOT, run_cli


def test_a_pipe_closed_early_ends_quietly(tmp_path):
    """`grade X --json | head -1`: the reader leaves before the report is written (here at once, as `true`
    does): no BrokenPipeError traceback, exit 0."""
    notebook = ROOT / "course" / "01_square" / "01_square.ipynb"
    run = subprocess.run(["bash", "-c", f'"{sys.executable}" -m autograder grade "{notebook}" --json | true; '
                                        'echo "status=${PIPESTATUS[0]}" >&2'],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "AUTOGRADER_HOME": str(tmp_path)})
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr, run.stderr[-2000:]
    assert "status=0" in run.stderr


def test_the_grade_table_fits_the_terminal():
    from autograder.classroom.gradebook import grade_table

    reports = [{"student": f"student-{s:02d}", "notebook": f"{n:02d}_a_long_notebook_name.ipynb", "score": 1.0,
                "max_score": 3.0, **({"lateness": {"late": True}} if (s, n) == (1, 3) else {})}
               for s in range(5) for n in range(18)]
    table = grade_table(reports, 100)
    assert max(len(line) for line in table.splitlines()) <= 100
    assert "18/54" in table and "1/3*" in table and "* late" in table
    assert max(len(line) for line in grade_table(reports).splitlines()) > 300, "a pipe gets one block, for tools"


def test_autograde_table_width_follows_the_terminal(monkeypatch):
    from autograder import cli

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a, **k: os.terminal_size((90, 40)))
    assert cli._terminal_width() == 90
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    assert cli._terminal_width() is None


def test_progress_in_a_log_is_lines_not_a_bar(capsys, monkeypatch):
    from autograder.classroom import autograde

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    bar = autograde._progress(3, True)
    bar.update(1)
    bar.write("  ada  01_square  3 / 3")
    bar.close()
    err = capsys.readouterr().err
    assert err == "  ada  01_square  3 / 3\n"


def test_a_time_limit_is_said_to_a_tenth():
    from types import SimpleNamespace

    from autograder.classroom import gradescope

    source = gradescope.grading_sources(["01_square"])[0]
    cell = SimpleNamespace(grade_id=source.grade_ids("test")[0], points=0.0, max_points=1.0, status="timeout",
                           feedback="time limit exceeded", mistake="timeout")
    report = SimpleNamespace(cells=[cell])
    (test,) = gradescope.tests_of(report, source, dict(gradescope.DEFAULT_VISIBILITY),
                                  limits=SimpleNamespace(seconds_per_test=11.93128))
    assert "(the time limit is 11.9 s a test here)" in test["output"]


def test_a_bad_zip_is_named(tmp_path):
    bad = tmp_path / "autograder-01.zip"
    bad.write_text("not a zip")
    notebook = ROOT / "course" / "01_square" / "01_square.ipynb"
    run = run_cli("gradescope", "--test", str(notebook), "--zip", str(bad), env={"AUTOGRADER_HOME": str(tmp_path)})
    assert run.returncode == 2 and f"error: {bad}: not an autograder zip (File is not a zip file)" in run.stderr
    truncated = tmp_path / "download.zip"
    with zipfile.ZipFile(truncated, "w") as z:
        z.writestr("kim_1_2_01_square.ipynb", notebook.read_text())
    truncated.write_bytes(truncated.read_bytes()[:-30])  # the central directory's end cut off
    run = run_cli("collect", str(truncated), env={"AUTOGRADER_HOME": str(tmp_path)})
    assert run.returncode == 2 and str(truncated) in run.stderr and "Traceback" not in run.stderr


def other_python():
    for path in sorted(glob.glob("/root/.pyenv/versions/3.1[02-9]*/bin/python3")
                       + glob.glob("/usr/bin/python3.1[02-9]") + glob.glob("/usr/local/bin/python3.1[02-9]")):
        if os.access(path, os.X_OK):
            return path
    return None


def test_make_setup_with_another_python_says_which_is_needed(tmp_path):
    python = other_python()
    if python is None:
        pytest.skip("no Python but 3.11 on this machine")
    for name in ("Makefile", "pyproject.toml", "tools/python_version.py", "requirements/dev.lock"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    run = subprocess.run(["make", "setup", f"PYTHON={python}"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0
    assert "make setup needs Python 3.11" in run.stderr and "make setup PYTHON=python3.11" in run.stderr
    assert not (tmp_path / ".venv").exists(), "nothing installed"
