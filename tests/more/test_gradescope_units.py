"""The Gradescope run's own steps, without a sandbox where none is needed: the isolation policy (never a
silent step down, never "none"), nothing of the grading alive before the final write, the time budget with
its provisional results, and the size cap of `python -m autograder grade`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.classroom import gradescope
from autograder.classroom.gradescope import levels as gradescope_levels
from autograder.classroom.gradescope import result_entries as gradescope_results
from autograder.engine import grading
from autograder.maintain import samples
from autograder.engine.sandbox import Graded, Isolation, Outcome, Runner

from helpers import ROOT, run_cli

FULL = {"level": "full", "namespaces": True, "read_only_root": True, "landlock": 7, "seccomp": True, "strong": True}
NO_NAMESPACES = {"level": "full", "namespaces": False, "namespaces_refused": "EPERM", "landlock": 7, "seccomp": True,
                 "strong": False}
NOTHING = {"level": "no-namespaces", "namespaces": False, "landlock": 0, "seccomp": False, "strong": False}


class FakeSandbox(Runner):
    """What grading sees of a sandbox, per level: the layers it measures, or an error to start with."""

    def __init__(self, layers: dict, tried: list):
        self.layers, self.tried, self.protected = layers, tried, []

    def run(self, before, tests, seed=0, limits=None):
        self.tried.append(limits.isolation)
        layers = self.layers[limits.isolation]
        if isinstance(layers, Exception):
            raise layers
        return Graded(tuple(Outcome("passed", "") for _ in tests), isolation=Isolation.from_wire(layers))


@pytest.fixture
def fake_levels(monkeypatch):
    """grade_with_fallback on a fake sandbox (`runner`): set `layers` per level; `tried` lists the probes and
    gradings."""
    state = {"layers": {}, "tried": [], "graded": []}

    def grade_text(text, name, runner, seed, limits, candidates):
        state["graded"].append(limits.isolation)
        layers = state["layers"][limits.isolation]
        return grading.Report(name, "01_square", 3, 3, [], isolation=Isolation.from_wire(layers)), None

    state["runner"] = FakeSandbox(state["layers"], state["tried"])
    monkeypatch.setattr(grading, "new_sandbox", lambda: state["runner"])
    monkeypatch.setattr(grading, "grade_text", grade_text)
    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    return state


def fallback(state: dict, *args):
    """grade_with_fallback through the fake sandbox of `fake_levels`."""
    return gradescope.grade_with_fallback(state["runner"], *args)


def square_source():
    return next(s for s in gradescope.grading_sources(["01_square"]))


def test_a_level_that_cannot_start_gives_way_only_to_an_allowed_one(fake_levels):
    fake_levels["layers"].update({"full": RuntimeError("the grading sandbox failed to start"),
                                  "no-namespaces": dict(NO_NAMESPACES, level="no-namespaces"), "none": NOTHING})
    report, level, failures = fallback(fake_levels, "{}", "01_square.ipynb", square_source(), {"seed": 0})
    assert fake_levels["tried"] == ["full", "no-namespaces"] and fake_levels["graded"] == ["no-namespaces"]
    assert level == "no-namespaces" and "failed to start" in failures[0]
    sentence = gradescope.isolation_sentence(report.isolation, level, failures)
    assert "isolation it can have" in sentence and "failed to start" in sentence


def test_full_without_namespaces_is_graded_where_the_instructor_allows_it(fake_levels):
    fake_levels["layers"].update({"full": NO_NAMESPACES, "no-namespaces": NO_NAMESPACES})
    _, level, failures = fallback(fake_levels, "{}", "n.ipynb", square_source(), {"seed": 0})
    assert level == "full" and failures == [] and fake_levels["graded"] == ["full"]
    with pytest.raises(gradescope.GradingUnavailable, match="full: only no namespaces"):
        fallback(fake_levels, "{}", "n.ipynb", square_source(), {"seed": 0, "weakest_isolation": "full"})


def test_no_allowed_level_means_unavailable_never_none(fake_levels):
    """Where neither full nor no-namespaces starts, or only layers below them hold, nothing is graded:
    "none" is never tried (before, the grader stepped down to it by itself)."""
    fake_levels["layers"].update({"full": RuntimeError("no"), "no-namespaces": RuntimeError("no"), "none": NOTHING})
    with pytest.raises(gradescope.GradingUnavailable, match="full: RuntimeError: no; no-namespaces: RuntimeError"):
        fallback(fake_levels, "{}", "n.ipynb", square_source(), {"seed": 0})
    fake_levels["layers"].update({"full": NOTHING, "no-namespaces": NOTHING})
    with pytest.raises(gradescope.GradingUnavailable, match="no Landlock, no seccomp could be put in force"):
        fallback(fake_levels, "{}", "n.ipynb", square_source(), {"seed": 0})
    assert "none" not in fake_levels["tried"] and fake_levels["graded"] == []
    for config in ({"isolation": "none"}, {"weakest_isolation": "none"},
                   {"isolation": "no-namespaces", "weakest_isolation": "full"}):
        with pytest.raises(gradescope.GradingUnavailable):
            fallback(fake_levels, "{}", "n.ipynb", square_source(), {"seed": 0, **config})


def test_the_image_build_fails_where_no_allowed_level_works(fake_levels, monkeypatch, capsys):
    """setup.sh's last step: below the weakest level allowed, the build fails and says why."""
    fake_levels["layers"].update({"full": NO_NAMESPACES, "no-namespaces": NO_NAMESPACES})
    monkeypatch.setattr(gradescope, "load_config", lambda: {"weakest_isolation": "full", "limits": {}})
    assert gradescope.check() == 1
    assert "below the weakest level allowed ('full')" in capsys.readouterr().err
    monkeypatch.setattr(gradescope, "load_config", lambda: {"weakest_isolation": "no-namespaces", "limits": {}})
    assert gradescope.check() == 0
    assert "grading at 'full' (weakest allowed: 'no-namespaces')" in capsys.readouterr().out


def test_the_isolation_options_are_checked_when_the_zip_is_built(tmp_path):
    for args, message in ((["--isolation", "none"], "grades at full or no-namespaces only"),
                          (["--weakest-isolation", "none"], "invalid choice"),
                          (["--isolation", "no-namespaces", "--weakest-isolation", "full"], "is weaker than"),
                          (["--budget", "0"], "--budget 0"), (["--budget", "2400"], "longest timeout"), (["--max-submission-mb", "-1"], "must be more than 0")):
        refused = run_cli("gradescope", "--assignment", "01_square", "--output", str(tmp_path / "z.zip"), *args)
        assert refused.returncode == 2 and message in refused.stderr, (args, refused.stderr)
    built = run_cli("gradescope", "--assignment", "01_square", "--output", str(tmp_path / "z.zip"),
                    "--weakest-isolation", "full", "--budget", "300", "--max-submission-mb", "5")
    assert built.returncode == 0, built.stderr
    import zipfile

    config = json.loads(zipfile.ZipFile(tmp_path / "z.zip").read("gradescope.json"))
    assert config["weakest_isolation"] == "full" and config["budget_seconds"] == 300
    assert config["max_submission_mb"] == 5 and "isolation" not in config
    default = run_cli("gradescope", "--assignment", "01_square", "--output", str(tmp_path / "d.zip"))
    config = json.loads(zipfile.ZipFile(tmp_path / "d.zip").read("gradescope.json"))
    assert config["weakest_isolation"] == "no-namespaces" and config["budget_seconds"] == 480
    assert "no-namespaces at most" in default.stdout and "480 s" in default.stdout


# ---------------------------------------------------------------------- nothing survives the grading

RUNNER = """
import json, os, sys, time
sys.path.insert(0, {root!r})
from autograder.classroom import gradescope
from autograder.engine import grading
from autograder.engine.sandbox import Isolation

RESULTS = {results!r}


def escaped_daemon(runner, text, name, source, config, cap=None):
    # What a learner's process that got out of its sandbox would leave: a double-forked daemon, in a session
    # of its own, that rewrites results.json once run_autograder is done.
    middle = os.fork()
    if middle == 0:
        os.setsid()
        if os.fork() == 0:
            open({pidfile!r} + ".tmp", "w").write(str(os.getpid()))
            os.rename({pidfile!r} + ".tmp", {pidfile!r})
            time.sleep(3)
            open(RESULTS, "w").write(json.dumps({{"score": 999, "output": "forged", "tests": []}}))
        os._exit(0)
    os.waitpid(middle, 0)
    while not os.path.exists({pidfile!r}):  # the daemon is on its own now
        time.sleep(0.01)
    report = grading.Report(name, "01_square", 3, 3, [grading.CellResult(g, 1, 1, "passed", "passed")
                            for g in ("test_Square_values", "test_Square_graph", "test_Square_saved")],
                            isolation=Isolation(namespaces=True, read_only_root=True, landlock=7, seccomp=True))
    return report, "full", []


gradescope.grade_with_fallback = escaped_daemon
sys.exit(gradescope.main(["run", "--root", {where!r}]))
"""


def test_a_double_forked_daemon_cannot_rewrite_results_after_the_run(tmp_path):
    """run_autograder's path is a child subreaper and ends every descendant before its final write: a daemon
    that escaped the process group and its parent is gone, and results.json stays as written."""
    where = gradescope.layout(tmp_path)
    where["submission"].mkdir(parents=True)
    _, nb = samples.student_notebook("01_square")
    (where["submission"] / "01_square.ipynb").write_text(nbformat.writes(nb))
    pidfile = tmp_path / "daemon.pid"
    script = RUNNER.format(root=str(ROOT), results=str(where["results"]), pidfile=str(pidfile), where=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != "AUTOGRADER_ISOLATION"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ended 1 processes left of the grading" in run.stdout, run.stdout
    pid = int(pidfile.read_text())
    written = json.loads(where["results"].read_text())
    assert written["score"] == 3
    time.sleep(4)
    assert json.loads(where["results"].read_text()) == written
    assert not Path(f"/proc/{pid}").exists() or b") Z " in Path(f"/proc/{pid}/stat").read_bytes()


def test_descendants_are_found_and_ended(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n"
                              "time.sleep(60)"])
    try:
        deadline = time.monotonic() + 10  # (this process may have other children: a sandbox's root process)
        while len(gradescope_levels.descendants(child.pid)) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        found = gradescope_levels.descendants(child.pid)
        assert len(found) == 1 and child.pid in gradescope_levels.descendants()
    finally:
        child.kill()
        child.wait()
    os.kill(found[0], 9)


# ------------------------------------------------------------------------- the budget, provisional results

def config(**extra) -> dict:
    return {"assignments": [], "seed": 0, "limits": {}, "visibility": dict(gradescope.DEFAULT_VISIBILITY),
            **extra}


def two_notebooks(tmp_path) -> dict:
    where = gradescope.layout(tmp_path)
    where["submission"].mkdir(parents=True)
    for assignment in ("01_square", "02_inputs_and_gradients"):
        _, nb = samples.student_notebook(assignment)
        (where["submission"] / f"{assignment}.ipynb").write_text(nbformat.writes(nb))
    return where


def fake_report(source):
    cells = [grading.CellResult(g, 1, 1, "passed", "passed") for g in source.grade_ids("test")]
    return grading.Report(f"{source.name}.ipynb", source.assignment, len(cells), len(cells), cells,
                          isolation=Isolation(namespaces=True, read_only_root=True, landlock=7, seccomp=True))


def test_results_are_written_before_the_first_test_and_after_each_notebook(tmp_path, monkeypatch):
    where = two_notebooks(tmp_path)
    seen = []

    def grade(runner, text, name, source, config_, cap=None):
        seen.append(json.loads(where["results"].read_text()))
        return fake_report(source), "full", []

    monkeypatch.setattr(gradescope, "load_config", lambda: config(assignments=["01_square", "02_inputs_and_gradients"]))
    monkeypatch.setattr(gradescope, "grade_with_fallback", grade)
    final = gradescope.run(tmp_path)
    first, second = seen
    assert first["score"] == 0 and all(t["output"] == gradescope.PENDING for t in first["tests"])
    assert len(first["tests"]) == 3 + 4  # every test of both notebooks, at 0, before anything ran
    square = [t for t in second["tests"] if t["name"].startswith("01_square: test_")]
    assert [t["status"] for t in square] == ["passed"] * 3 and second["score"] == 3
    assert all(t["output"] == gradescope.PENDING for t in second["tests"] if t["name"].startswith("02_"))
    assert final["score"] == 7 and not [t for t in final["tests"] if t["output"] == gradescope.PENDING]


def test_the_budget_ends_a_grading_that_never_returns(tmp_path, monkeypatch):
    """A notebook whose grading outlives the budget: run() returns at the budget with a final results.json,
    the notebook's tests and every later one saying the budget ran out."""
    where = two_notebooks(tmp_path)
    caps = []

    def grade(runner, text, name, source, config_, cap=None):
        caps.append(cap)
        time.sleep(30)

    monkeypatch.setattr(gradescope, "load_config", lambda: config(budget_seconds=2, assignments=[]))
    monkeypatch.setattr(gradescope, "grade_with_fallback", grade)
    started = time.monotonic()
    data = gradescope.run(tmp_path)
    assert time.monotonic() - started < 6
    assert data["score"] == 0 and len(data["tests"]) == 7 and json.loads(where["results"].read_text()) == data
    assert all("time budget (2 s" in t["output"] for t in data["tests"])
    assert "ran out while grading this notebook" in data["tests"][0]["output"]
    assert "ran out before this notebook" in data["tests"][-1]["output"]
    # each test's limit was cut so that the worst case of both notebooks fits: (3 tests + 1 answer cell + 1) +
    # (4 + 1 + 1) + 1 units
    assert len(caps) == 1 and caps[0] == pytest.approx(2 / 13, abs=0.05)


def test_each_tests_limit_is_cut_only_where_the_budget_needs_it():
    limits = gradescope_levels.level_limits({"limits": {"seconds_per_test": 60}}, "full", 96)
    assert limits.seconds_per_test == 60
    assert gradescope_levels.level_limits({"limits": {}}, "full", 12.5).seconds_per_test == 12.5


def test_a_timeout_names_the_loop_in_the_tests_it_costs():
    source = square_source()
    cells = [grading.CellResult("test_Square_values", 0, 1, "timeout", "time limit exceeded ...", "timeout"),
             grading.CellResult("test_Square_graph", 0, 1, "error", "stopped responding", "learner-stalled"),
             grading.CellResult("test_Square_saved", 0, 1, "error", "stopped responding", "learner-stalled")]
    report = grading.Report("01_square.ipynb", "01_square", 0, 3, cells)
    tests = gradescope.tests_of(report, source, gradescope.DEFAULT_VISIBILITY, "",
                                gradescope_levels.level_limits({"limits": {}}, "full", 10))
    assert tests[0]["output"].startswith("timeout: time limit exceeded") and "10 s a test here" in tests[0]["output"]
    for test in tests[1:]:
        assert "test_Square_values ran out of time (10 s each)" in test["output"] and "infinite loop" in test["output"]


def test_a_summary_is_shown_no_earlier_than_its_most_hidden_test():
    assert gradescope_results.most_hidden(["visible", "after_due_date"]) == "after_due_date"
    assert gradescope_results.most_hidden(["after_due_date", "after_published"]) == "after_published"
    assert gradescope_results.most_hidden(["visible", "hidden", "after_published"]) == "hidden"
    tests = [{"visibility": "visible"}, {"visibility": "after_published"}]
    assert gradescope.summary_test("s", "3 / 3", True, tests)["visibility"] == "after_published"


# -------------------------------------------------------------------------- the size cap of `grade`

def test_grade_refuses_an_oversized_notebook_before_reading_it(tmp_path):
    from autograder.engine import notebooks

    _, nb = samples.student_notebook("01_square")
    big = tmp_path / "01_square.ipynb"
    big.write_text(nbformat.writes(nb).rstrip()[:-1] + ', "padding": "' + "x" * 21_000_000 + '"}')
    refused = run_cli("grade", str(big))
    assert refused.returncode == 2 and "is larger than 20 MB, the most a submitted notebook may be" in refused.stderr
    assert "Traceback" not in refused.stderr
    small = tmp_path / "small.ipynb"
    small.write_text(nbformat.writes(nb))
    capped = run_cli("grade", str(small), env={"AUTOGRADER_MAX_SUBMISSION_MB": "0.01"})
    assert capped.returncode == 2 and "small.ipynb: is larger than 0.01 MB" in capped.stderr, capped.stderr
    with pytest.raises(notebooks.NotebookError, match="larger than"):
        notebooks.read_text(small, limit=100)
    assert notebooks.read_text(small) == small.read_text()


def test_run_autograders_own_fallback_is_plain_text_too():
    from autograder.classroom.gradescope import scripts as gradescope_scripts

    fallback = gradescope_scripts.RUN_AUTOGRADER.split("<<'JSON'\n")[1].split("\nJSON")[0]
    assert json.loads(fallback)["output_format"] == "text" and json.loads(fallback)["score"] == 0


STOPPABLE = """
import sys, time
sys.path.insert(0, {root!r})
from autograder.classroom import gradescope


def slow(runner, text, name, source, config, cap=None):
    open({ready!r}, "w").write("grading")
    time.sleep(60)


gradescope.grade_with_fallback = slow
sys.exit(gradescope.main(["run", "--root", {where!r}]))
"""


def test_a_stopped_run_still_writes_its_final_results(tmp_path):
    """SIGTERM in the middle of a notebook: the final results.json says the autograder was stopped."""
    where = gradescope.layout(tmp_path)
    where["submission"].mkdir(parents=True)
    _, nb = samples.student_notebook("01_square")
    (where["submission"] / "01_square.ipynb").write_text(nbformat.writes(nb))
    ready = tmp_path / "ready"
    script = STOPPABLE.format(root=str(ROOT), ready=str(ready), where=str(tmp_path))
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert json.loads(where["results"].read_text())["tests"][0]["output"] == gradescope.PENDING
    process.terminate()
    out, err = process.communicate(timeout=30)
    data = json.loads(where["results"].read_text())
    assert data["score"] == 0 and len(data["tests"]) == 3, out + err
    assert all(t["output"].startswith("Not graded: the autograder was stopped (SIGTERM)") for t in data["tests"])


def test_an_upload_of_many_notebooks_is_read_up_to_a_bound(tmp_path):
    """Thirty copies: the first twenty by name are considered (each under the size cap), the rest named."""
    source = square_source()
    _, nb = samples.student_notebook("01_square", fill=False)
    for number in range(30):
        (tmp_path / f"copy{number:02}.ipynb").write_text(nbformat.writes(nb))
    files = gradescope.candidates(tmp_path)
    chosen, lines, rejected = gradescope.consider(files, [source], {}, tmp_path, 10_000_000)
    assert [p.name for p, _, _ in chosen] == ["copy00.ipynb"]
    assert len(lines) == 21 and lines[0].startswith("- 10 more notebooks (copy20.ipynb, copy21.ipynb")
    assert rejected[0].endswith("read up to its first 20 notebooks by name")
