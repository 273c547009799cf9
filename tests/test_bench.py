"""make bench: its figures add up, and a one-student run of both graders agrees on every score."""

import subprocess

import pytest

from autograder import bench
from helpers import PY, ROOT


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
    result = subprocess.run([str(PY), "-m", "autograder.bench", "--students", "2", "--assignments", "01_square"],
                            cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for figure in ("ours (--workers 2)", "plain nbgrader (serial)", "plain nbgrader (2 processes", "speed-up:",
                   "time in the checks themselves", "over nbgrader on 2 processes", "ours again, after nbgrader",
                   "peak memory of a grading process", "the checks themselves", "scores agree on all 2 notebooks"):
        assert figure in out, out
