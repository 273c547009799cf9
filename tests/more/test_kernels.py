"""The course's compiled kernel (autograder/kernels/, notebook 16): built outside the learner's process, loaded by
the grader's root before it forks, so a learner's process has the ops although it can neither run a compiler
(exec is refused) nor write next to the built library (read-only)."""

from __future__ import annotations

import nbformat
import torch

from autograder.engine import grading
from autograder import kernels
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

PROBE = '''
import subprocess
from autograder import kernels
seen = ["load: " + kernels.load(allow_build=False)]
try:
    subprocess.run(["c++", "--version"], capture_output=True)
    seen.append("exec: ran")
except OSError as error:
    seen.append(f"exec: {type(error).__name__}")
try:
    open(kernels.build_dir() / "written-by-a-learner", "w")
    seen.append("write: ran")
except OSError as error:
    seen.append(f"write: {type(error).__name__}")
torch.ops.load_library(str(kernels.library_path()))
seen.append("dlopen: ok")
raise RuntimeError("SEEN " + " | ".join(seen))
'''


def test_the_ops_are_loaded_with_their_schemas():
    assert kernels.load() in {"inherited", "loaded", "built"} and kernels.loaded()
    assert str(torch.ops.course_kernels.rms_norm.default._schema) == (
        "course_kernels::rms_norm(Tensor x, float eps) -> (Tensor, Tensor)")
    assert kernels.library_path().exists() and kernels.library_path().parent == kernels.build_dir()
    assert kernels.key().split("-")[0] in str(kernels.build_dir())


def test_a_learner_has_the_kernel_but_cannot_compile_or_write_beside_it(sandbox):
    _, nb = samples.student_notebook("16_custom_kernels")
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "answer_rms_norm":
            cell.source += "\n" + PROBE
    report, _ = grading.grade_text(nbformat.writes(nb), "16_custom_kernels.ipynb", sandbox,
                                   limits=Limits(seconds_per_test=60))
    seen = next(note for note in report.notes if "SEEN" in note)
    assert "load: inherited" in seen, seen                 # the root loaded it before forking
    assert "exec: ran" not in seen and "exec: PermissionError" in seen, seen
    assert "write: ran" not in seen, seen
    assert "dlopen: ok" in seen, seen                      # the built library is readable there
    assert report.score == report.max_score                # the answers still grade (the probe ran last)
