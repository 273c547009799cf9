"""course/ is exactly what nbgrader generates from solutions/, and holds nothing students must not see."""

import filecmp
import json

import pytest

from autograder.engine import notebooks
from autograder import paths
from autograder.maintain import release


def test_course_is_in_sync_with_solutions(grading_home, tmp_path):
    fresh = tmp_path / "course"
    assignments = [s.assignment for s in notebooks.sources()]
    release.generate(assignments, release_dir=fresh)
    generated = sorted(p.relative_to(fresh) for p in fresh.glob("*/*.ipynb"))
    committed = sorted(p.relative_to(paths.COURSE) for p in paths.COURSE.glob("*/*.ipynb"))
    assert generated == committed, "run `make release` and commit course/"
    stale = [str(p) for p in generated if not filecmp.cmp(fresh / p, paths.COURSE / p, shallow=False)]
    assert not stale, f"course/ differs from a fresh release: {stale}; run `make release`"


def test_release_has_no_solutions_markers_or_outputs():
    assert release.problems_in_release() == []
    for path in paths.COURSE.glob("*/*.ipynb"):
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("solution") and not meta.get("grade"):
                assert "NotImplementedError" in "".join(cell["source"]), f"{path.name}: an answer cell is filled"


def test_every_solution_notebook_has_a_release():
    for source in notebooks.sources():
        assert (paths.COURSE / source.assignment / source.path.name).exists()


def test_release_refuses_when_a_solution_fails_its_tests(sandbox):
    import copy

    source = next(s for s in notebooks.sources() if s.assignment == "01_square")
    broken = copy.deepcopy(source.notebook)
    for cell in broken.cells:
        if notebooks.role(cell) == "answer":
            cell.source = cell.source.replace("grad_output * 2 * x", "grad_output * x")
    with pytest.raises(release.ReleaseRefused, match="test_Square_values"):
        release.verify_solutions([notebooks.Source(source.path, broken)], sandbox)


def test_release_removes_notebooks_whose_source_is_gone(tmp_path):
    """A split or renamed notebook leaves no stale copy behind in course/."""
    for name in ("10_old_name", "01_square"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.ipynb").write_text("{}")
    (tmp_path / "images").mkdir()  # not a notebook folder: left alone
    assert release.remove_retired(tmp_path, {"01_square"}) == ["10_old_name"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["01_square", "images"]
