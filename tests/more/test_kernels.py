"""The course's compiled kernel (autograder/kernels/, notebook 16): built outside the learner's process, loaded by
the grader's root before it forks, so a learner's process has the ops although it can neither run a compiler
(exec is refused) nor write next to the built library (read-only)."""

from __future__ import annotations

import nbformat
import pytest
import torch

from autograder.engine import grading, notebooks
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


# --------------------------------------------------------------------------- the released notebook, as a learner runs it

STUB = "    # YOUR CODE HERE\n    raise NotImplementedError()\n"
# Exercise 2 written without the optional second operator (its stubs stay): the gradient in torch operations.
SETUP_CONTEXT = ("    x, eps = inputs\n    _, rstd = output\n    ctx.save_for_backward(x, rstd)\n"
                 "    ctx.mark_non_differentiable(rstd)\n")
BACKWARD = ("    x, rstd = ctx.saved_tensors\n    r = rstd.unsqueeze(-1)\n"
            "    return r * (grad_out - x * r * r * (grad_out * x).mean(-1, keepdim=True)), None\n")


def _run_all(nb, tmp_path) -> dict:
    """Every code cell run in order as Run All runs them, but on past an error: {grade_id: (role, error or None)}.
    The self-check cell (which grades the saved file) is left out."""
    from nbclient import NotebookClient

    nb.cells = [c for c in nb.cells if "grade_this_notebook" not in c.source]
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    found = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        gid = cell.metadata.get("nbgrader", {}).get("grade_id") or cell.get("id")
        found[gid] = (samples.role(cell), f"{errors[0]['ename']}: {errors[0]['evalue']}" if errors else None)
    return found


# (assignment, its visible tests, the answer cells that raise when run unfilled: a cell with no skeleton, whose
# placeholder class comes before nbgrader's stub, a top-level raise)
@pytest.mark.parametrize(("assignment", "visible_tests", "raising_answers"),
                         [("10_torch_func", 7, {"answer_Cube"}), ("11_compile_and_export", 9, set()),
                          ("16_custom_kernels", 6, set())])
def test_the_unfilled_notebook_stops_only_at_exercises_and_says_not_implemented_yet(assignment, visible_tests,
                                                                                     raising_answers, tmp_path):
    _, nb = samples.student_notebook(assignment, fill=False)
    cells = _run_all(nb, tmp_path)
    stopped = {gid: error for gid, (role, error) in cells.items() if error and not gid.startswith("test_")}
    assert set(stopped) == raising_answers, f"Run All stops at cells that are no exercise's tests: {stopped}"
    assert all(e.startswith("NotImplementedError") for e in stopped.values()), stopped
    tests = {gid: error for gid, (_, error) in cells.items() if gid.startswith("test_")}
    assert len(tests) == visible_tests
    unclear = {gid: error for gid, error in tests.items() if not error or "not implemented yet" not in error}
    assert not unclear, unclear


def test_filling_in_the_functions_of_exercise_2_passes_its_visible_tests(tmp_path):
    """Exercise 2's answer cell as released, with its two functions written (the optional second operator left as
    it was): all four visible tests pass; the released cell may hold nothing that ends it before its functions."""
    _, nb = samples.student_notebook("16_custom_kernels", fill=False)
    rms_norm = samples.reference_answers(next(s for s in notebooks.sources()
                                              if s.assignment == "16_custom_kernels"))["answer_rms_norm"]
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid == "answer_rms_norm":
            cell.source = rms_norm
        elif gid == "answer_grad_rms_norm":
            for signature, body in (("def rms_norm_setup_context(ctx, inputs, output):\n", SETUP_CONTEXT),
                                    ("def rms_norm_backward(ctx, grad_out, grad_rstd):\n", BACKWARD)):
                assert signature + STUB in cell.source, cell.source
                cell.source = cell.source.replace(signature + STUB, signature + body)
    cells = _run_all(nb, tmp_path)
    failed = {gid: error for gid, (_, error) in cells.items() if error}
    assert not failed, failed
