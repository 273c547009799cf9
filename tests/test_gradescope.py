"""The Gradescope autograder, run as Gradescope runs it: the zip built by the CLI, unpacked into
<root>/autograder/source, setup.sh into a fresh venv (which reuses the course's installed packages, so no
PyTorch is downloaded), then run_autograder once per submission, each results.json checked against
Gradescope's documented format (https://gradescope-autograders.readthedocs.io/en/latest/specs/)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import jsonschema
import nbformat
import pytest

from autograder import gradescope, samples

from helpers import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("gradescope")]

FORMAT = {"enum": ["text", "html", "simple_format", "md", "ansi"]}
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
# Gradescope's results.json: `score` (required unless every test has one), `output`, `visibility`,
# `stdout_visibility`, `execution_time`, `extra_data`, and `tests`, each with `score`, `max_score`, `name`,
# `number`, `output`, `visibility`, `status` ("passed" or "failed"), `tags`, `extra_data`.
RESULTS_SCHEMA = {
    "type": "object",
    "required": ["score", "output", "tests"],
    "properties": {
        "score": {"type": "number", "minimum": 0},
        "execution_time": {"type": "number", "minimum": 0},
        "output": {"type": "string"},
        "output_format": FORMAT,
        "test_output_format": FORMAT,
        "test_name_format": FORMAT,
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "leaderboard": {"type": "array", "items": {"type": "object", "required": ["name", "value"]}},
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "score", "max_score", "status", "output", "visibility"],
                "properties": {
                    "score": {"type": "number", "minimum": 0},
                    "max_score": {"type": "number", "minimum": 0},
                    "status": {"enum": ["passed", "failed"]},
                    "name": {"type": "string", "minLength": 1},
                    "name_format": FORMAT,
                    "output_format": FORMAT,
                    "number": {"type": "string"},
                    "output": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "visibility": VISIBILITY,
                    "extra_data": {"type": "object"},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
SECRETS = ["BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "check.gradcheck(Square)", "Traceback (most recent call"]
WRONG = {e.name: e.source for e in samples.zoo() if e.exercise == "Square"}["wrong_derivative"]


def valid(results: dict) -> dict:
    jsonschema.validate(results, RESULTS_SCHEMA)
    assert results["score"] == sum(t["score"] for t in results["tests"]) or not results["tests"]
    assert all(t["score"] <= t["max_score"] for t in results["tests"])
    text = json.dumps(results)
    assert not [s for s in SECRETS if s in text], text[:3000]
    return results


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The zip as an instructor builds it, unpacked and set up as Gradescope's image build does."""
    work = tmp_path_factory.mktemp("gradescope")
    zip_path = work / "autograder.zip"
    built = run_cli("gradescope", "--assignment", "01_square", "--output", str(zip_path),
                    env={"AUTOGRADER_HOME": str(work / "home")})
    assert built.returncode == 0, built.stderr
    root = work / "root"
    source = root / "autograder" / "source"
    source.mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
        assert {"setup.sh", "run_autograder", "requirements.txt", "pyproject.toml", "gradescope.json",
                "autograder/__init__.py", "autograder/sandbox/judge.py", "autograder/checks/square.py",
                "solutions/01_square/01_square.ipynb"} <= set(names)
        assert not [n for n in names if n.startswith(("solutions/", "tests/")) and "01_square" not in n]
        archive.extractall(source)
        for info in archive.infolist():  # zipfile drops the modes Gradescope's unzip keeps
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777 or 0o644)
    assert "torch==2.13.0" in (source / "setup.sh").read_text()
    assert "--index-url https://download.pytorch.org/whl/cpu" in (source / "setup.sh").read_text()
    env = clean_env(root, AUTOGRADER_PYTHON=getattr(sys, "_base_executable", sys.executable),
                    AUTOGRADER_REUSE_SITE=sysconfig.get_paths()["purelib"])
    setup = subprocess.run(["bash", str(source / "setup.sh")], cwd=source, env=env, capture_output=True, text=True,
                           timeout=900)
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    assert "Requirement already satisfied: torch==2.13.0" in setup.stdout, setup.stdout[-2000:]
    assert "isolation here:" in setup.stdout
    assert (root / "autograder" / "venv" / "bin" / "python").exists()
    return root


def clean_env(root: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "VIRTUAL_ENV", "AUTOGRADER_HOME", "AUTOGRADER_ISOLATION"}}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    return {**env, "AUTOGRADER_ROOT": str(root), **extra}


def submit(root: Path, files: dict[str, str], **env) -> dict:
    """Gradescope's run: a fresh submission folder, run_autograder, results.json."""
    submission = root / "autograder" / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir(parents=True)
    for name, text in files.items():
        (submission / name).parent.mkdir(parents=True, exist_ok=True)
        (submission / name).write_text(text)
    results = root / "autograder" / "results" / "results.json"
    results.unlink(missing_ok=True)
    run = subprocess.run(["bash", str(root / "autograder" / "source" / "run_autograder")], cwd=root / "autograder",
                         env=clean_env(root, **env), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return valid(json.loads(results.read_text()))


def notebook(answer: str | None = None, fill: bool = True) -> str:
    _, nb = samples.student_notebook("01_square", {"Square": answer} if answer else None, fill=fill)
    return nbformat.writes(nb)


def test_correct_submission_full_marks_whatever_its_name(installed):
    results = submit(installed, {"homework/My Work (1).ipynb": notebook()})
    assert results["score"] == 3 and [t["status"] for t in results["tests"]] == ["passed"] * 3
    assert [t["name"] for t in results["tests"]] == ["test_Square_values", "test_Square_graph", "test_Square_saved"]
    assert {t["visibility"] for t in results["tests"]} == {"after_published"}  # cells with hidden tests
    assert "Isolation:" in results["output"] and "My Work (1).ipynb" in results["output"]


def test_wrong_submission_where_namespaces_are_refused(installed):
    """Gradescope's containers usually refuse user namespaces: the grade is the same, and results.json
    says with which isolation it was computed."""
    results = submit(installed, {"01_square.ipynb": notebook(WRONG)}, AUTOGRADER_ISOLATION="no-namespaces")
    assert results["score"] == 1
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert len(failed) == 2 and all(t["output"] and t["score"] == 0 for t in failed)
    assert "no namespaces" in results["output"] and "isolation it can have" in results["output"]


def test_hostile_submission_gains_nothing(installed):
    attack = (ROOT / "tests" / "redteam" / "attacks" / "landlock" / "read-protected-files.py").read_text()
    source = installed / "autograder" / "source"
    for key, value in {"{solutions}": source / "solutions", "{zoo}": source / "tests" / "zoo",
                       "{home}": source / ".grading", "{WRONG}": WRONG}.items():
        attack = attack.replace(key, str(value))
    forged = installed / "autograder" / "results" / "results.json"
    attack += (f"\ntry:\n    open({str(forged)!r}, 'w').write('{{\"score\": 100, \"tests\": []}}')\n"
               "except OSError:\n    pass\n")
    results = submit(installed, {"01_square.ipynb": notebook(attack)})
    assert results["score"] <= 1
    assert "READ [" in json.dumps(results)  # the attack ran, and what it read is in its feedback: no secret


def test_malformed_and_foreign_submissions_score_zero_and_say_why(installed):
    broken = submit(installed, {"01_square.ipynb": '{"cells": [ this is not json'})
    assert broken["score"] == 0 and "not a notebook" in broken["output"]
    assert len(broken["tests"]) == 3 and {t["max_score"] for t in broken["tests"]} == {1.0}
    nothing = submit(installed, {"answers.py": "print('hi')\n"})
    assert nothing["score"] == 0 and "No notebook" in nothing["output"]
    foreign = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    other = submit(installed, {"homework.ipynb": nbformat.writes(foreign)})
    assert other["score"] == 0 and "not a notebook of this course" in other["output"]
    stripped = nbformat.reads(notebook(), as_version=4)
    for cell in stripped.cells:
        cell.metadata = {}
    empty = submit(installed, {"01_square.ipynb": nbformat.writes(stripped)})
    assert empty["score"] == 0 and "no answer cells" in empty["output"]


def test_a_crashing_grader_still_writes_results(installed):
    config = installed / "autograder" / "source" / "gradescope.json"
    saved = config.read_text()
    try:
        config.write_text("{ not json")
        results = submit(installed, {"01_square.ipynb": notebook()})
        assert results["score"] == 0 and "tell your instructor" in results["output"]
        venv = installed / "autograder" / "venv"
        results = submit(installed, {"01_square.ipynb": notebook()}, AUTOGRADER_VENV=str(venv / "missing"))
        assert results["score"] == 0 and "could not run" in results["output"]
    finally:
        config.write_text(saved)


# ------------------------------------------------------------------------------ in-process, no sandbox

def test_visibility_is_the_instructors_choice(tmp_path):
    assert gradescope.parse_visibility(None) == {"visible": "visible", "hidden": "after_published",
                                                 "stdout": "hidden"}
    assert gradescope.parse_visibility(["hidden=after_due_date"])["hidden"] == "after_due_date"
    for bad in ["hidden", "secret=visible", "hidden=later"]:
        with pytest.raises(ValueError):
            gradescope.parse_visibility([bad])
    out = tmp_path / "gs.zip"
    assert run_cli("gradescope", "--assignment", "01_square", "--output", str(out), "--visibility",
                   "hidden=visible", "--timeout", "30").returncode == 0
    config = json.loads(zipfile.ZipFile(out).read("gradescope.json"))
    assert config["visibility"]["hidden"] == "visible" and config["limits"] == {"seconds_per_test": 30}
    refused = run_cli("gradescope", "--assignment", "99_nope", "--output", str(out))
    assert refused.returncode == 2 and "no such assignment" in refused.stderr
    assert run_cli("gradescope", "--output", str(out)).returncode == 2  # --assignment or --all


def test_a_level_whose_sandbox_fails_gives_way_to_a_weaker_one(monkeypatch):
    from contextlib import nullcontext

    from autograder import grading, notebooks

    tried = []

    def fake_grade(text, name, sandbox, seed, limits, candidates):
        tried.append(limits.isolation)
        if limits.isolation != "none":
            raise RuntimeError("the grading sandbox failed to start")
        return grading.Report(name, "01_square", 3, 3, [], isolation={"strong": False}), None

    monkeypatch.setattr(grading, "new_sandbox", lambda: nullcontext())
    monkeypatch.setattr(grading, "grade_text", fake_grade)
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    source = next(s for s in notebooks.sources() if s.assignment == "01_square")
    report, level, failures = gradescope.grade_with_fallback("{}", "01_square.ipynb", source, {"seed": 0})
    assert tried == ["full", "no-namespaces", "none"] and level == "none" and len(failures) == 2
    sentence = gradescope.isolation_sentence(report.isolation, level, failures)
    assert "isolation it can have" in sentence and "failed to start" in sentence


def test_an_autograder_for_every_notebook_names_tests_by_notebook(tmp_path, monkeypatch):
    """`--all`: the submission is graded as the notebook it is; here one without answer cells (so no
    sandbox runs), which scores 0 on that notebook's tests, each named after it."""
    stripped = nbformat.reads(notebook(), as_version=4)
    for cell in stripped.cells:
        cell.metadata = {}
    where = gradescope.layout(tmp_path)
    where["submission"].mkdir(parents=True)
    (where["submission"] / "01_square.ipynb").write_text(nbformat.writes(stripped))
    monkeypatch.setattr(gradescope, "load_config", lambda: {"assignments": [], "seed": 0, "limits": {},
                                                            "visibility": dict(gradescope.DEFAULT_VISIBILITY)})
    results = valid(gradescope.run(tmp_path))
    assert results["score"] == 0 and "no answer cells" in results["output"]
    assert [t["name"] for t in results["tests"]] == [f"01_square: {n}" for n in
                                                     ("test_Square_values", "test_Square_graph", "test_Square_saved")]
