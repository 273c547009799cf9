"""The Gradescope autograder, run as Gradescope runs it: the zip built by the CLI, unpacked into
<root>/autograder/source, setup.sh into a fresh venv (which reuses the course's installed packages, so no
PyTorch is downloaded), then run_autograder once per submission, each results.json checked against
Gradescope's documented format (https://gradescope-autograders.readthedocs.io/en/latest/specs/)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from contextlib import contextmanager
from pathlib import Path

import jsonschema
import nbformat
import pytest

from autograder.classroom import gradescope
from autograder.classroom.gradescope import autograder_zip as gradescope_zip
from autograder.classroom.gradescope import settings as gradescope_settings
from autograder.classroom.gradescope.schema import RESULTS_SCHEMA  # the schema the autograder checks at run time
from autograder.maintain import samples

from helpers import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("gradescope")]

SECRETS = ["BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "check.gradcheck(Square)", "Traceback (most recent call"]
WRONG = {e.name: e.source for e in samples.zoo() if e.exercise == "Square"}["wrong_derivative"]


def valid(results: dict) -> dict:
    jsonschema.validate(results, RESULTS_SCHEMA)
    assert results["score"] == sum(t.get("score", 0) for t in results["tests"]) or not results["tests"]
    assert all(t["score"] <= t["max_score"] for t in results["tests"] if "score" in t)
    formats = {results[k] for k in ("output_format", "test_output_format", "test_name_format")}
    formats |= {t[k] for t in results["tests"] for k in ("output_format", "name_format")}
    assert formats == {"text"}, formats  # never Gradescope's default simple_format, which renders HTML
    text = json.dumps(results)
    assert not [s for s in SECRETS if s in text], text[:3000]
    return results


def graded(results: dict) -> list[dict]:
    """The scored tests (not the informational entries)."""
    return [t for t in results["tests"] if "score" in t]


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
                "autograder/__init__.py", "autograder/engine/sandbox/judge.py", "autograder/checks/square.py",
                "grading/01_square/01_square.ipynb", "grading/course.json"} <= set(names)
        assert not [n for n in names if n.startswith(("solutions/", "tests/"))]  # no reference answer travels
        assert not [n for n in names if n.startswith("grading/") and n.endswith(".ipynb") and "01_square" not in n]
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
    """The reference answers score full marks from the zip's grading copy (which holds none of them)."""
    results = submit(installed, {"homework/My Work (1).ipynb": notebook()})
    assert results["score"] == 3 and [t["status"] for t in graded(results)] == ["passed"] * 3
    assert [t["name"] for t in graded(results)] == ["test_Square_values", "test_Square_graph", "test_Square_saved"]
    assert {t["visibility"] for t in results["tests"]} == {"after_published"}  # cells with hidden tests
    assert "Isolation: full" in results["output"] and "My Work (1).ipynb" in results["output"]
    (summary,) = [t for t in results["tests"] if "score" not in t]
    assert "3 / 3" in summary["output"] and "3 / 3" not in results["output"]


def test_wrong_submission_where_namespaces_are_refused(installed, tmp_path):
    """Gradescope's containers usually refuse user namespaces: the grade is the one `grade` gives, and
    results.json says with which isolation it was computed."""
    results = submit(installed, {"01_square.ipynb": notebook(WRONG)}, AUTOGRADER_ISOLATION="no-namespaces")
    (tmp_path / "01_square.ipynb").write_text(notebook(WRONG))
    local = json.loads(run_cli("grade", str(tmp_path / "01_square.ipynb"), "--json").stdout)
    assert [(t["name"], t["score"]) for t in graded(results)] == [(c["grade_id"], c["points"]) for c in local["cells"]]
    assert results["score"] == local["score"] < 3
    failed = [t for t in graded(results) if t["status"] == "failed"]
    assert failed and all(t["output"] and t["score"] == 0 for t in failed)
    assert "no namespaces" in results["output"] and "isolation it can have" in results["output"]


def test_hostile_submission_gains_nothing(installed):
    attack = (ROOT / "tests" / "redteam" / "attacks" / "landlock" / "read-protected-files.py").read_text()
    source = installed / "autograder" / "source"
    for key, value in {"{solutions}": source / "grading", "{zoo}": source / "tests" / "zoo",  # the hidden tests
                       "{home}": source / ".grading", "{WRONG}": WRONG}.items():
        attack = attack.replace(key, str(value))
    forged = installed / "autograder" / "results" / "results.json"
    attack += (f"\ntry:\n    open({str(forged)!r}, 'w').write('{{\"score\": 100, \"tests\": []}}')\n"
               "except OSError:\n    pass\n")
    for level in ("full", "no-namespaces"):  # (the second: Gradescope's containers, usually)
        results = submit(installed, {"01_square.ipynb": notebook(attack)}, AUTOGRADER_ISOLATION=level)
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
    assert gradescope_settings.parse_visibility(None) == {"visible": "visible", "hidden": "after_published",
                                                 "stdout": "hidden"}
    assert gradescope_settings.parse_visibility(["hidden=after_due_date"])["hidden"] == "after_due_date"
    for bad in ["hidden", "secret=visible", "hidden=later"]:
        with pytest.raises(ValueError):
            gradescope_settings.parse_visibility([bad])
    out = tmp_path / "gs.zip"
    assert run_cli("gradescope", "--assignment", "01_square", "--output", str(out), "--visibility",
                   "hidden=visible", "--timeout", "30").returncode == 0
    config = json.loads(zipfile.ZipFile(out).read("gradescope.json"))
    assert config["visibility"]["hidden"] == "visible" and config["limits"] == {"seconds_per_test": 30}
    refused = run_cli("gradescope", "--assignment", "99_nope", "--output", str(out))
    assert refused.returncode == 2 and "no such assignment" in refused.stderr
    assert run_cli("gradescope", "--output", str(out)).returncode == 2  # --assignment or --all


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


# ------------------------------------------------------------------- what grades count on (issues 23, 27)

@contextmanager
def configured(root: Path, **changes):
    """The installed autograder with gradescope.json changed, as if built with other options."""
    config = root / "autograder" / "source" / "gradescope.json"
    saved = config.read_text()
    data = json.loads(saved)
    for key, value in changes.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    config.write_text(json.dumps(data))
    try:
        yield
    finally:
        config.write_text(saved)


def test_the_zip_holds_no_reference_answer_and_grades_from_its_test_cells(tmp_path):
    """Every notebook's zip: no solution marker, no answer cell's reference source, and the grading copies
    hold the released answer cells with the instructor's test cells (hidden tests included)."""
    from autograder.engine import notebooks
    from autograder import paths

    out = tmp_path / "all.zip"
    released = [s for s in notebooks.sources() if (paths.COURSE / s.assignment / s.path.name).exists()]
    gradescope_zip.build(out, [s.assignment for s in released], seed=0)  # (a notebook being written has no release yet)
    with zipfile.ZipFile(out) as archive:
        texts = {n: archive.read(n).decode("utf-8", "replace") for n in archive.namelist()}
    assert not [n for n, t in texts.items() if "BEGIN SOLUTION" in t or "END SOLUTION" in t]
    keys = {k.relative_to(paths.ROOT).as_posix() for a, k in paths.ANSWER_KEYS.items()
            if a in {s.assignment for s in released}}
    assert {n for n in texts if n.startswith("solutions/")} == keys  # the answer keys hidden tests read, no more
    flat = {n: re.sub(r"\s+", "", t.replace("\\n", "\n")) for n, t in texts.items()}
    released_text = "".join(re.sub(r"\s+", "", p.read_text().replace("\\n", "\n"))
                            for p in paths.COURSE.glob("*/*.ipynb"))
    checked = 0
    for source in released:
        copy = nbformat.reads(texts[f"grading/{source.assignment}/{source.path.name}"], as_version=4)
        released = nbformat.read(paths.COURSE / source.assignment / source.path.name, as_version=4)
        public = {c.metadata.nbgrader["grade_id"]: c.source for c in released.cells
                  if c.metadata.get("nbgrader", {}).get("solution")}
        for cell in copy.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                assert cell.source == public[meta["grade_id"]]
        tests = {c.metadata.nbgrader["grade_id"]: c.source for c in copy.cells if c.metadata.get("nbgrader", {}).get("grade")}
        assert tests == {c.metadata.nbgrader["grade_id"]: c.source for c in source.cells("test")}
        for cell in source.cells("answer"):  # the package is public (students install it): not its files
            whole = re.sub(r"\s+", "", notebooks.strip_markers(cell.source))
            assert not [n for n, t in flat.items() if whole in t], source.assignment
            for answer in re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", cell.source, re.S):
                body = re.sub(r"\s+", "", answer)
                if body in released_text:
                    continue  # a line the lessons show anyway (`return torch.round(x)`)
                assert not [n for n, t in flat.items() if body in t and not n.startswith("autograder/")], answer
                checked += 1
    assert checked >= 20  # the answers' own code, not only lines the lessons show
    refused = run_cli("gradescope", "--assignment", "01_square", "--isolation", "none", "--output", str(out))
    assert refused.returncode == 2 and "Gradescope grades at full or no-namespaces only" in refused.stderr


def test_the_answered_copy_is_graded_not_the_blank_duplicate(installed):
    """JupyterLab's Duplicate leaves a blank `-Copy1` beside the answered notebook: the answered one is graded,
    whichever name it has, and the output names both files and why."""
    answered, blank = notebook(), notebook(fill=False)
    for files in ({"01_square.ipynb": answered, "01_square-Copy1.ipynb": blank},
                  {"01_square.ipynb": blank, "01_square-Copy1.ipynb": answered}):
        results = submit(installed, files)
        assert results["score"] == 3, results["output"]
        chosen = next(name for name, text in files.items() if text is answered)
        other = next(name for name in files if name != chosen)
        lines = results["output"].splitlines()
        assert [line for line in lines if line.startswith(f"- {chosen} ") and "1 of 1 answer cells filled in" in line
                and ": chosen (the copy with the most answer cells filled in)" in line], results["output"]
        assert [line for line in lines if line.startswith(f"- {other} ") and "0 of 1 answer cells filled in" in line
                and f"not chosen (fewer answers than {chosen})" in line], results["output"]


def test_another_assignments_notebook_is_named_as_such(installed):
    _, nb = samples.student_notebook("02_inputs_and_gradients")
    results = submit(installed, {"homework.ipynb": nbformat.writes(nb)})
    assert results["score"] == 0 and len(results["tests"]) == 3
    assert ("homework.ipynb is the notebook 02_inputs_and_gradients.ipynb (assignment 02_inputs_and_gradients), "
            "not one this autograder grades (01_square.ipynb): upload it to that assignment") in results["output"]
    assert "not a notebook of this course" not in results["output"]


def test_an_oversized_upload_is_refused_before_it_is_read(installed):
    """A 21 MB notebook (its JSON padded): a sentence and score 0, not a crash; a smaller cap is the
    instructor's choice; the other, normal file of the upload is still graded."""
    padded = notebook().rstrip()[:-1] + ', "padding": "' + "x" * 21_000_000 + '"}'
    results = submit(installed, {"01_square.ipynb": padded})
    assert results["score"] == 0 and "is larger than 20 MB, the most a submitted notebook may be" in results["output"]
    both = submit(installed, {"big.ipynb": padded, "01_square.ipynb": notebook()})
    assert both["score"] == 3 and "big.ipynb: is larger than 20 MB" in both["output"]
    with configured(installed, max_submission_mb=0.01):
        small = submit(installed, {"01_square.ipynb": notebook()})
    assert small["score"] == 0 and "is larger than 0.01 MB" in small["output"]


def test_a_level_that_cannot_start_means_grading_unavailable_never_none(installed):
    """Where no level the instructor allows can start (here: the learner's sandbox never gets to start in
    time), nothing is graded at a weaker level: every test says grading is unavailable, and why."""
    for change, why in (({"limits": {"fork_seconds": 0.0001}}, "the sandbox did not start"),
                        ({"isolation": "none"}, "Gradescope grades only at full or no-namespaces"),
                        ({"weakest_isolation": "none"}, "Gradescope grades only at full or no-namespaces")):
        with configured(installed, **change):
            results = submit(installed, {"01_square.ipynb": notebook()})
        assert results["score"] == 0 and len(graded(results)) == 3, results
        assert all(t["status"] == "failed" and t["output"].startswith("Grading is unavailable on this autograder")
                   and why in t["output"] for t in results["tests"]), results["tests"]
        assert "Grading is unavailable" in results["output"] and "level 'none'" not in results["output"]
    refused = submit(installed, {"01_square.ipynb": notebook()}, AUTOGRADER_ISOLATION="none")
    assert refused["score"] == 0 and "Grading is unavailable" in refused["output"]


LOOPS = """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        while True:
            pass

    @staticmethod
    def backward(ctx, grad_output):
        while True:
            pass
"""


def test_a_notebook_that_loops_everywhere_ends_within_the_budget(installed):
    """A 40 s budget: each test's limit is cut so the worst case fits, every test names the loop, and the
    run ends in time with a final results.json."""
    with configured(installed, budget_seconds=40):
        started = time.monotonic()
        results = submit(installed, {"01_square.ipynb": notebook(LOOPS)})
        took = time.monotonic() - started
    assert took < 40 + 15 and results["execution_time"] < 40 + 5, took
    assert results["score"] == 0 and len(graded(results)) == 3
    for test in graded(results):
        assert "time limit exceeded" in test["output"] or ("ran out of time" in test["output"] and "loop" in
                                                           test["output"]), test


def test_hidden_tests_hide_their_summary_and_text_is_text(installed):
    """Hidden tests `after_due_date`: the always-visible output says nothing of their score or feedback; the
    notebook's score and notes are shown with its tests; names and messages are plain text, never HTML."""
    with configured(installed, visibility={"hidden": "after_due_date"}):
        results = submit(installed, {"<b>mine</b>.ipynb": notebook(WRONG)})
    assert {t["visibility"] for t in results["tests"]} == {"after_due_date"}
    assert "/ 3" not in results["output"] and "gradient" not in results["output"]
    assert "<b>mine</b>.ipynb" in results["output"] and "shown after the due date" in results["output"]
    (summary,) = [t for t in results["tests"] if "score" not in t]
    assert summary["visibility"] == "after_due_date" and f"{results['score']:g} / 3" in summary["output"]


DAEMON = """
import os, time


def _daemon():
    try:
        os.setsid()
    except OSError:
        pass
    try:
        if os.fork() == 0:
            time.sleep(4)
            open({results!r}, "w").write('{{"score": 999, "tests": []}}')
    finally:
        os._exit(0)


try:
    if os.fork() == 0:
        _daemon()
except OSError as error:
    print("no fork:", error)
"""


def daemon_answer(results: Path) -> str:
    from autograder.engine import notebooks

    source = next(s for s in notebooks.sources() if s.assignment == "01_square")
    return DAEMON.format(results=str(results)) + samples.reference_answers(source)["answer_Square"]


def survivors(root: Path) -> list[int]:
    """Processes whose environment names this test's /autograder (every process of its gradings)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if f"AUTOGRADER_ROOT={root}".encode() in environ.split(b"\0") and int(entry) != os.getpid():
            found.append(int(entry))
    return found


def test_a_daemon_of_the_learner_leaves_nothing_behind(installed):
    """At the weakest level Gradescope may grade at, an answer that double-forks a daemon to rewrite
    results.json later: nothing of the grading is alive after run_autograder, and results.json stays."""
    results_path = installed / "autograder" / "results" / "results.json"
    results = submit(installed, {"01_square.ipynb": notebook(daemon_answer(results_path))},
                     AUTOGRADER_ISOLATION="no-namespaces")
    assert results["score"] == 3
    assert survivors(installed) == []
    time.sleep(5)
    assert json.loads(results_path.read_text()) == results


def test_try_a_zip_locally_as_gradescope_runs_it(tmp_path):
    from autograder import paths

    answer = paths.SOLUTIONS / "01_square" / "01_square.ipynb"
    tried = run_cli("gradescope", "--assignment", "01_square", "--test", str(answer))
    assert tried.returncode == 0, tried.stderr
    assert "results.json: score 3 / 3" in tried.stdout and "What a student sees now:" in tried.stdout
    now = tried.stdout.split("What a student sees now:")[1].split("What a student sees after")[0]
    assert "score: not shown" in now and "PASSED" not in now  # hidden tests: after_published by default
    published = tried.stdout.split("once the grades are published:")[1]
    assert "score: 3 / 3" in published and "PASSED  test_Square_saved" in published
    out = tmp_path / "gs.zip"
    assert run_cli("gradescope", "--assignment", "01_square", "--output", str(out)).returncode == 0
    as_json = run_cli("gradescope", "--zip", str(out), "--test", str(answer), "--json")
    assert as_json.returncode == 0 and valid(json.loads(as_json.stdout))["score"] == 3
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    for bad in (["--zip", str(tmp_path / "junk.zip"), "--test", str(answer)],
                ["--zip", str(out), "--test", str(tmp_path / "missing.ipynb")], ["--zip", str(out)]):
        refused = run_cli("gradescope", *bad)
        assert refused.returncode == 2 and refused.stderr.startswith("error:"), (bad, refused.stderr)


def test_the_grading_copy_grades_exactly_as_the_instructors_source():
    """The same submissions (the reference answers and a mistake from the zoo for each of three notebooks)
    graded against solutions/ and against the zip's grading copy: the same status, points and feedback."""
    from autograder.engine import grading, notebooks
    from autograder.engine.sandbox import Limits

    zoo = {e.exercise: e.source for e in samples.zoo()}
    with grading.new_sandbox() as sandbox:
        for assignment in ("01_square", "04_saving_tensors", "13_safe_gradients"):
            source = next(s for s in notebooks.sources() if s.assignment == assignment)
            copy = notebooks.Source(source.path, gradescope.grading_copy(source))
            exercise = samples.exercises_of(assignment)[0]
            for answers in (None, {exercise: zoo[exercise]}):
                _, nb = samples.student_notebook(assignment, answers)
                text = nbformat.writes(nb)
                reports = [grading.grade_text(text, f"{source.name}.ipynb", sandbox, 7, Limits(), [s])[0]
                           for s in (source, copy)]
                first, second = ([(c.grade_id, c.status, c.points, c.feedback) for c in r.cells] for r in reports)
                assert first == second and first, assignment
                assert answers or reports[0].score == reports[0].max_score
