"""Every results.json the autograder writes keeps the instructor's visibility, also where nothing was graded (an empty
upload, the provisional file a kill leaves), and passes Gradescope's schema at run time."""

import json

import nbformat
import pytest

from autograder.classroom import gradescope
from autograder.classroom.gradescope import result_entries as gradescope_results
from autograder.classroom.gradescope.schema import problems


def config(hidden: str):
    return {"assignments": ["01_square"], "seed": 0, "limits": {},
            "visibility": {**gradescope.DEFAULT_VISIBILITY, "hidden": hidden}}


@pytest.mark.parametrize("upload", ["nothing", "not-a-notebook", "stub"])
def test_a_zero_score_keeps_the_visibility(tmp_path, monkeypatch, upload):
    from autograder.maintain import samples

    where = gradescope.layout(tmp_path)
    where["submission"].mkdir(parents=True)
    if upload == "not-a-notebook":
        (where["submission"] / "01_square.ipynb").write_text("{ not json")
    elif upload == "stub":  # answers deleted: no answer cell at all
        nb = samples.student_notebook("01_square", fill=False)[1]
        nb.cells = [c for c in nb.cells if "answer" not in json.dumps(c.get("metadata", {}))]
        (where["submission"] / "01_square.ipynb").write_text(nbformat.writes(nb))
    monkeypatch.setattr(gradescope, "load_config", lambda: config("hidden"))
    results = gradescope.run(tmp_path)
    assert problems(results) == []
    scored = [t for t in results["tests"] if "score" in t]
    assert scored and {t["visibility"] for t in scored} == {"hidden"}, [t["visibility"] for t in scored]
    assert results["score"] == 0


def test_the_provisional_tests_keep_the_visibility():
    source = gradescope.grading_sources(["01_square"])[0]
    for hidden in ("hidden", "after_due_date"):
        tests = gradescope_results.zero_tests(source, config(hidden)["visibility"], gradescope.PENDING)
        assert {t["visibility"] for t in tests} == {hidden}


def test_a_results_json_that_breaks_the_schema_is_never_written(tmp_path, capsys):
    path = tmp_path / "results.json"
    bad = gradescope_results.results_json(3.0, "ok", [{"name": "t", "score": 5.0, "max_score": 3.0,
                                                       "status": "passed", "output": "", "visibility": "visible",
                                                       "output_format": "text", "name_format": "text"}],
                                          {"stdout": "hidden"})
    gradescope_results.write(path, bad)
    written = json.loads(path.read_text())
    assert problems(written) == [] and written["score"] == 0 and "tell your instructor" in written["output"]
    assert "score 5.0 above max_score 3.0" in capsys.readouterr().err
    gradescope_results.write(path, {**bad, "visibility": "sometimes"})
    assert "'sometimes' is not one of" in capsys.readouterr().err


def test_a_foreign_notebook_is_told_in_a_students_words(tmp_path, monkeypatch):
    """A homework.ipynb of another course: the student reads what to do, not where the instructor keeps files."""
    where = gradescope.layout(tmp_path)
    where["submission"].mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('my homework')")])
    (where["submission"] / "homework.ipynb").write_text(nbformat.writes(nb))
    monkeypatch.setattr(gradescope, "load_config", lambda: config("after_published"))
    results = gradescope.run(tmp_path)
    assert problems(results) == []
    text = results["output"] + "".join(t["output"] for t in results["tests"])
    assert "homework.ipynb: not a notebook of this course" in text and "copy your answers into it" in text
    assert "solutions/" not in text


def test_gradescope_test_reuses_the_kernel_build_and_says_so(tmp_path):
    """--test unpacks the zip afresh each time (setup.sh, which builds notebook 16's kernel, is not run): the
    checkout's build is copied in, and a zip with another kernel source is said to build during the try."""
    from autograder import kernels
    from autograder.classroom.gradescope.autograder_zip import reuse_kernel_build

    if not kernels.library_path().exists():
        pytest.skip("the kernel is not built in this checkout (make setup builds it)")
    source = tmp_path / "source"
    (source / "autograder" / "kernels").mkdir(parents=True)
    (source / "autograder" / "kernels" / "rms_norm.cpp").write_bytes(kernels.SOURCE.read_bytes())
    said = reuse_kernel_build(source)
    assert said.startswith("notebook 16's C++ kernel: reusing this checkout's build"), said
    copied = source / "autograder" / "kernels" / "build" / kernels.build_dir().name / "course_kernels.so"
    assert copied.read_bytes() == kernels.library_path().read_bytes()
    (source / "autograder" / "kernels" / "rms_norm.cpp").write_text("// another kernel\n")
    assert "differs from this checkout's, so the grader builds it" in reuse_kernel_build(source)
