"""make bench: its figures add up, and a one-student run of both graders agrees on every score."""

import subprocess

import nbformat
import pytest

from autograder.maintain import bench, samples
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
        ("ref", "01_square", 3.0, 3.0), ("zoo", "01_square", 1.0, 3.0)]
    assert out[1]["statuses"] == ["failed", "failed", "passed"]
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
    cells = [{"seconds": 0.2, "phases": {"answers": 0.02, "fork": 0.01, "check": 0.05}},
             {"seconds": 0.4, "phases": {"answers": 0.1, "check": 0.2}}]
    out = bench.test_breakdown(cells)
    assert out["setup and answer cells (once per notebook, shared by its tests)"] == pytest.approx(0.06)
    assert out["copy of the learner's state and a fresh judge (forks)"] == pytest.approx(0.005)
    assert out["the test cell (the checks themselves, with their requests)"] == pytest.approx(0.125)
    assert out["whole test"] == pytest.approx(0.3)
    assert out["exit, result channel, clean-up"] == pytest.approx(0.3 - 0.19)
    assert bench.test_breakdown([]) == {}


@pytest.mark.slow
@pytest.mark.xdist_group("classroom")
def test_bench_runs_both_graders_and_they_agree():
    result = subprocess.run([str(PY), "-m", "autograder.maintain.bench", "--students", "2", "--assignments", "01_square"],
                            cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for figure in ("ours (--workers 2)", "plain nbgrader (serial)", "plain nbgrader (2 processes", "speed-up:",
                   "time in the checks themselves", "over nbgrader on 2 processes", "ours again, after nbgrader",
                   "peak memory of a grading process", "the checks themselves", "scores agree on all 2 notebooks",
                   "in-process, no isolation", "ours / in-process:", "in-process scores agree with ours on all 2"):
        assert figure in out, out
