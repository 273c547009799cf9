"""The self-check cell grades the notebook being run, also in a renamed copy or a JupyterLab "Duplicate", whose
cell still names the original ("01_square.ipynb"): the notebook is found by content, as `grade` finds its course
notebook, and the session path Jupyter gives the kernel wins when it names a copy of the same notebook."""

import os
import shutil

import pytest

from autograder import selfcheck
from autograder.paths import COURSE

SQUARE = COURSE / "01_square" / "01_square.ipynb"
SHAPES = COURSE / "03_shapes" / "03_shapes.ipynb"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    return tmp_path


def saved(path, source, mtime):
    shutil.copy(source, path)
    os.utime(path, (mtime, mtime))
    return path.resolve()


def test_a_renamed_copy_is_found_by_its_content(folder):
    copy = saved(folder / "my attempt.ipynb", SQUARE, 1_000)
    saved(folder / "shapes.ipynb", SHAPES, 2_000)                  # another course notebook: not this one
    assert selfcheck.find_notebook("01_square.ipynb") == copy


def test_a_duplicate_beside_the_original_is_graded_when_the_kernel_runs_it(folder):
    original = saved(folder / "01_square.ipynb", SQUARE, 2_000)
    duplicate = saved(folder / "01_square-Copy1.ipynb", SQUARE, 1_000)
    assert selfcheck.find_notebook("01_square.ipynb", session=str(duplicate)) == duplicate
    assert selfcheck.find_notebook("01_square.ipynb", session=str(original)) == original
    os.environ["JPY_SESSION_NAME"] = str(duplicate)                 # what jupyter_server gives the kernel
    try:
        assert selfcheck.find_notebook("01_square.ipynb") == duplicate
    finally:
        del os.environ["JPY_SESSION_NAME"]


def test_without_a_session_the_copy_saved_last_is_graded(folder):
    original = saved(folder / "01_square.ipynb", SQUARE, 1_000)
    duplicate = saved(folder / "01_square-Copy1.ipynb", SQUARE, 2_000)
    assert selfcheck.find_notebook("01_square.ipynb") == duplicate
    os.utime(original, (3_000, 3_000))
    assert selfcheck.find_notebook("01_square.ipynb") == original


def test_a_session_of_another_notebook_or_a_stale_one_is_not_used(folder):
    original = saved(folder / "01_square.ipynb", SQUARE, 1_000)
    shapes = saved(folder / "scratch.ipynb", SHAPES, 2_000)
    assert selfcheck.find_notebook("01_square.ipynb", session=str(shapes)) == original
    assert selfcheck.find_notebook("01_square.ipynb", session=str(folder / "renamed-away.ipynb")) == original
    assert selfcheck.find_notebook("01_square.ipynb", session="5f1c-a-session-id") == original


def test_no_copy_of_the_notebook_is_a_clear_error(folder):
    saved(folder / "shapes.ipynb", SHAPES, 1_000)
    (folder / "broken.ipynb").write_text("{not json")
    with pytest.raises(FileNotFoundError, match="no notebook in .* comes from 01_square"):
        selfcheck.find_notebook("01_square.ipynb")


def test_a_name_that_is_no_course_notebook_is_graded_as_named(folder):
    own = saved(folder / "my_own.ipynb", SQUARE, 1_000)
    assert selfcheck.find_notebook("my_own.ipynb") == own
    with pytest.raises(FileNotFoundError, match="not found"):
        selfcheck.find_notebook("missing.ipynb")


@pytest.mark.slow
def test_the_self_check_grades_a_renamed_copy(folder, capsys):
    saved(folder / "my attempt.ipynb", SQUARE, 1_000)
    report = selfcheck.grade_this_notebook("01_square.ipynb", show=False)
    assert "grading my attempt.ipynb" in capsys.readouterr().out
    assert report["notebook"] and report["max_score"] > 0 and report["score"] == 0   # the unfilled release


def test_without_fork_the_self_check_grades_a_preview_in_process(tmp_path, monkeypatch, capsys):
    """Windows without WSL has no os.fork: the self-check grades in a plain process of its own and says, in one
    sentence, that it is a preview; a wrong answer still loses its points."""
    import os

    from helpers import write_student

    right = write_student(tmp_path / "right" / "01_square.ipynb", "01_square")
    wrong = write_student(tmp_path / "wrong" / "01_square.ipynb", "01_square",
                          {"Square": "class Square(torch.autograd.Function):\n"
                                     "    @staticmethod\n    def forward(ctx, x):\n        return x * x\n"
                                     "    @staticmethod\n    def backward(ctx, g):\n        return g\n"})
    monkeypatch.delattr(os, "fork")
    monkeypatch.chdir(tmp_path / "right")
    report = selfcheck.grade_this_notebook(str(right), show=False)
    assert report["score"] == report["max_score"] == 3
    assert report["notes"][0] == selfcheck.NO_FORK_NOTE
    monkeypatch.chdir(tmp_path / "wrong")
    report = selfcheck.grade_this_notebook(str(wrong), show=False)
    assert report["score"] < 3 and any(c["status"] == "failed" for c in report["cells"])
    assert selfcheck.NO_FORK_NOTE in selfcheck._text(report)
