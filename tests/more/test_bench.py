"""make bench: its figures add up, and a one-student run of both graders agrees on every score."""

import json
import os
import subprocess
from importlib import metadata

import nbformat
import pytest

from autograder.maintain import bench, bench_figures, samples
from autograder import paths
from helpers import PY, ROOT


def _write(tmp_path, student, answers):
    source, nb = samples.student_notebook("01_square", answers)
    path = tmp_path / "submitted" / student / "01_square" / f"{source.name}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return path


def test_in_process_grading_gives_the_known_scores(tmp_path):
    """The reference answer earns all 3 points; the wrong derivative fails the gradient checks (1 of 3),
    as the sandboxed grader scores them."""
    wrong = (paths.ZOO / "Square" / "wrong_derivative.py").read_text()
    files = [_write(tmp_path, "ref", {}), _write(tmp_path, "zoo", {"Square": wrong})]
    out = bench.grade_in_process(files)
    assert [(nb["student"], nb["assignment"], nb["score"], nb["max_score"]) for nb in out] == [
        ("ref", "01_square", 3.0, 3.0), ("zoo", "01_square", 2.0, 3.0)]
    assert out[1]["statuses"] == ["failed", "passed", "passed"]
    for nb in out:
        assert len(nb["check_seconds"]) == 3
        assert 0 < nb["answers_seconds"] <= nb["seconds"]
        assert sum(nb["check_seconds"]) <= nb["seconds"]


def test_floor_figures_compare_ours_with_the_in_process_run():
    in_process = {"seconds": 2.0, "notebooks": [{"check_seconds": [0.1, 0.2, 0.3]}, {"check_seconds": [0.4]}]}
    cells = [{"seconds": 1.0, "check_seconds": 0.5}, {"seconds": 2.0, "check_seconds": 0.5}]
    out = bench.floor_figures(in_process, ours_s=10.0, workers=2, cells=cells)
    assert out["per_notebook"] == pytest.approx(1.0)
    assert out["per_test"] == pytest.approx(0.5)
    assert out["checks_per_test"] == pytest.approx(0.25)
    assert out["wall_ratio"] == pytest.approx(5.0)
    assert out["worker_ratio"] == pytest.approx(10.0)
    assert out["ours_per_test"] == pytest.approx(1.5)
    assert out["ours_overhead_per_test"] == pytest.approx(1.0)


def test_breakdown_groups_the_phases_and_the_rest_is_process_overhead():
    cells = [{"seconds": 0.2, "phases": {"answers": 0.02, "fork": 0.01, "check": 0.05, "requests": 0.03}},
             {"seconds": 0.4, "phases": {"answers": 0.1, "check": 0.2}}]
    out = bench.test_breakdown(cells)
    assert out["setup and answer cells (once per notebook, shared by its tests)"] == pytest.approx(0.06)
    assert out["copy of the learner's state (a fork)"] == pytest.approx(0.005)
    assert out["round trips to the learner's process"] == pytest.approx(0.015)
    assert out[bench_figures.CHECKS_OWN] == pytest.approx((0.02 + 0.2) / 2)
    assert out[bench_figures.REST] == pytest.approx((0.14 + 0.2) / 2)
    assert out["whole test, with its share of the answers"] == pytest.approx((0.22 + 0.5) / 2)
    assert bench.test_breakdown([]) == {}
    assert bench.round_trips_per_test([{"round_trips": 4}, {"round_trips": 1}, {}]) == pytest.approx(5 / 3)


REPORTS = [{"student": "a", "assignment": "01_square", "seconds": 3.0,
            "cells": [{"grade_id": "t1", "seconds": 0.5, "round_trips": 10, "memory_mb": 300,
                       "phases": {"answers": 0.1, "fork": 0.1, "check": 0.3, "requests": 0.2}},
                      {"grade_id": "t2", "seconds": 0.3, "round_trips": 2, "memory_mb": 310,
                       "phases": {"answers": 0.1, "fork": 0.1, "check": 0.1, "requests": 0.05}}]},
           {"student": "b", "assignment": "01_square", "seconds": 1.0,
            "cells": [{"grade_id": "t1", "seconds": 0.5, "round_trips": 6, "phases": {}},
                      {"grade_id": "t2", "seconds": 0.3, "round_trips": 2, "phases": {}}]}]
FLOOR = {"notebooks": [{"student": "a", "assignment": "01_square", "seconds": 0.2, "answers_seconds": 0.02,
                        "check_seconds": [0.1, 0.05], "grade_ids": ["t1", "t2"]},
                       {"student": "b", "assignment": "01_square", "seconds": 0.3, "answers_seconds": 0.04,
                        "check_seconds": [0.1, 0.1], "grade_ids": ["t1", "t2"]}]}


def test_notebook_rows_put_ours_beside_the_floor():
    [row] = bench.notebook_rows(REPORTS, FLOOR)
    assert (row["notebook"], row["submissions"], row["tests"]) == ("01_square", 2, 2)
    assert row["ours_seconds"] == pytest.approx(2.0) and row["floor_seconds"] == pytest.approx(0.25)
    assert row["ratio"] == pytest.approx(8.0)
    assert row["per_test"]["round_trips"] == pytest.approx(5.0)
    assert row["peak_mb"] == 310


def test_test_rows_share_the_answers_out_on_both_sides():
    rows = {r["test"]: r for r in bench.test_rows(REPORTS, FLOOR)}
    assert rows["t1"]["floor_seconds"] == pytest.approx((0.01 + 0.1 + 0.02 + 0.1) / 2)
    assert rows["t1"]["ours_seconds"] == pytest.approx((0.6 + 0.5) / 2)
    assert rows["t1"]["round_trips"] == pytest.approx(8.0)
    assert rows["t1"]["checks_own"] == pytest.approx(0.05)


RECORD_FIELDS = ("date", "torch", "python", "cores", "arguments", "assignments", "submissions", "ours", "floor",
                 "notebooks", "tests", "scores", "nbgrader")


def test_marginal_figures_take_the_slope_of_two_class_sizes():
    small = {"notebooks": 10, "ours_seconds": 8.0, "floor_seconds": 5.0}
    big = {"notebooks": 30, "ours_seconds": 14.0, "floor_seconds": 7.0}
    out = bench_figures.marginal_figures(small, big)
    assert out["notebooks"] == [10, 30]
    assert out["ours"]["marginal_per_notebook"] == pytest.approx(0.3)
    assert out["ours"]["fixed_seconds"] == pytest.approx(5.0)
    assert out["floor"]["marginal_per_notebook"] == pytest.approx(0.1)
    assert out["floor"]["fixed_seconds"] == pytest.approx(4.0)
    assert out["marginal_ratio"] == pytest.approx(3.0)
    flat = bench_figures.marginal_figures(small, dict(big, floor_seconds=5.0))
    assert flat["marginal_ratio"] == float("inf")  # written as null in the record (_finite)


@pytest.mark.slow
@pytest.mark.xdist_group("classroom")
def test_bench_runs_both_graders_and_they_agree(tmp_path):
    record = tmp_path / "bench" / "run.json"
    result = subprocess.run([str(PY), "-m", "autograder.maintain.bench", "--students", "2", "--assignments", "01_square",
                             "--second-class", "3", "--record", str(record)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for figure in ("ours (--workers 2)", "plain nbgrader (serial)", "plain nbgrader (2 processes", "speed-up:",
                   "time in the checks themselves", "over nbgrader on 2 processes", "ours again, after nbgrader",
                   "peak memory of a grading process", "the checks' own compute", "scores agree on all 2 notebooks",
                   "in-process, no isolation", "ours / in-process:", "in-process scores agree with ours on all 2",
                   "round trips to the learner's process:", "per notebook", "slowest tests", "record written to",
                   "two class sizes (2 and 3 notebooks)", "ours / in-process, one more notebook:"):
        assert figure in out, out
    data = json.loads(record.read_text())
    assert all(field in data for field in RECORD_FIELDS), sorted(data)
    assert data["torch"] == metadata.version("torch") and data["cores"] == os.cpu_count()
    assert data["arguments"]["students"] == 2 and data["arguments"]["record"] == str(record)
    assert data["submissions"] == 2 and data["scores"]["notebooks"] == 2
    assert data["marginal"]["notebooks"] == [2, 3] and data["marginal"]["ours"]["seconds"][1] > 0
    assert data["scores"]["floor_agrees"] and data["scores"]["nbgrader_agrees"], data["scores"]
    [row] = data["notebooks"]
    assert row["notebook"] == "01_square" and row["tests"] == 3 and row["ratio"] > 1
    assert data["ours"]["round_trips_per_test"] > 0  # every test calls the learner's Square
    assert {r["test"] for r in data["tests"]} == {"test_Square_values", "test_Square_graph", "test_Square_saved"}


COMPILING_TESTS = {"test_numpy_sin_opcheck", "test_numpy_sin_compile", "test_numpy_sin_export",
                   "test_numpy_topk_opcheck"}


def _compile_phases(report) -> dict:
    return {c.grade_id: c.phases.get("compile", 0.0) for c in report.cells}


@pytest.mark.parametrize("where", ["in process", "sandbox"])
def test_compiling_is_counted_where_the_checks_compile_trace_or_export(where):
    """Notebook 11's opcheck, compile and export tests spend part of their time compiling (the compiling probes,
    and the calls of the compiled function they return), every other test none: the bench's `compile` column."""
    from autograder.engine import grading, notebooks
    from autograder.engine.runners import InProcessRunner

    source = next(s for s in notebooks.sources() if s.assignment == "11_compile_and_export")
    runner = InProcessRunner() if where == "in process" else grading.new_sandbox()
    report = grading.reference_report(source, runner)
    assert report.score == report.max_score
    phases = _compile_phases(report)
    assert {g for g, seconds in phases.items() if seconds > 0} == COMPILING_TESTS
    for cell in report.cells:
        assert phases[cell.grade_id] <= cell.check_seconds
