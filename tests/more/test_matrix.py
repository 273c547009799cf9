"""The compatibility matrix (autograder/maintain/matrix.py): a fresh run on the installed torch agrees with the
committed record for that release, and README.md's table and the site's page are the ones the committed
records render to. `python -m autograder.maintain.matrix run` then `render` (or `make matrix`) updates them."""

import json

import pytest

from autograder.maintain import matrix, upstream_bugs


def _committed():
    import torch

    path = matrix.record_path(torch.__version__.split("+")[0])
    if not path.exists():
        pytest.fail(f"no committed matrix for torch {torch.__version__}: run `python -m autograder.maintain.matrix run` "
                    "and `render`, and commit docs/compat/")
    return json.loads(path.read_text())


@pytest.mark.slow
def test_fresh_run_matches_the_committed_matrix():
    committed = _committed()
    fresh = matrix.run(say=lambda *a: None)
    diff = matrix.differences(fresh, committed)
    assert not diff, ("the matrix changed on torch " + fresh["torch"] + "; re-run `python -m autograder.maintain.matrix run` "
                      "and `render` if this is intended:\n" + "\n".join(diff))


def test_every_cell_is_recorded():
    committed = _committed()
    assert set(committed["cells"]) == {f"{r} | {c}" for r in matrix.ROWS for c in matrix.COLUMNS}
    assert {cell["outcome"] for cell in committed["cells"].values()} <= {"works", "raises", "silently wrong", "n/a"}


def test_readme_and_site_page_are_rendered_from_the_records():
    readme_section, page = matrix.render()
    assert readme_section in matrix.README.read_text(encoding="utf-8"), "README.md's matrix is stale: run render"
    assert matrix.SITE_PAGE.read_text(encoding="utf-8") == page, "docs/site/compatibility.md is stale: run render"


def test_the_matrix_links_the_registered_bugs():
    readme_section, _ = matrix.render()
    for bug in upstream_bugs.BUGS:
        if bug.matrix and bug.url:
            assert bug.url in readme_section
