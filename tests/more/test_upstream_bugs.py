"""Known-bug sentinels: every upstream PyTorch bug a notebook's asserts encode is registered in
autograder/maintain/upstream_bugs.py with a reproducer. On a release that fixes one, its test fails with the issue and
the notebooks and cells to update ("pytorch#197867 no longer reproduces ...: update 10b (...) and 14 (...)")."""

import re

import nbformat
import pytest

from autograder.engine import notebooks
from autograder.maintain import upstream_bugs

BUGS = upstream_bugs.BUGS
SOURCES = {s.path.parent.name: s for s in notebooks.sources()}
# An issue number cited in a code cell: "pytorch/pytorch#170834", "pytorch#170834", ", #179652".
CITED = re.compile(r"(?:pytorch(?:/pytorch)?#|issues/|, #)(\d{4,6})")


@pytest.mark.parametrize("bug", BUGS, ids=[b.key for b in BUGS])
def test_bug_still_reproduces(bug):
    try:
        still = bug.reproduces()
    except Exception as error:          # the reproducer itself broke: the behaviour changed
        pytest.fail(f"{bug.update_message()} (its reproducer raised {type(error).__name__}: {error})")
    if not bug.expected():  # measured gone from a release on: it must stay gone there
        assert not still, (f"{bug.key} was measured gone in torch {bug.until} but holds on "
                           f"{upstream_bugs.torch.__version__}")
        return
    assert still, bug.update_message()


def test_every_issue_a_notebook_asserts_on_is_registered():
    registered = {n for bug in BUGS for n in bug.issues}
    unregistered = []
    for folder, source in SOURCES.items():
        for cell in nbformat.read(source.path, as_version=4).cells:
            if cell.cell_type == "code":
                unregistered += [f"{folder}/{cell.get('id')}: #{n}" for n in CITED.findall(cell.source)
                                 if int(n) not in registered]
    assert not unregistered, f"issues cited in code cells but not in autograder/maintain/upstream_bugs.py: {unregistered}"


def test_registered_cells_exist_and_the_citing_ones_are_listed():
    for bug in BUGS:
        for folder, ids in bug.cells.items():
            assert folder in SOURCES, f"{bug.key}: no notebook {folder}"
            cells = {c.get("id"): c for c in nbformat.read(SOURCES[folder].path, as_version=4).cells}
            missing = [i for i in ids if i not in cells]
            assert not missing, f"{bug.key}: {folder} has no cells {missing}"
        for folder, source in SOURCES.items():
            for cell in nbformat.read(source.path, as_version=4).cells:
                cited = {int(n) for n in CITED.findall(cell.source)}
                if bug.issues and bug.issues[0] in cited:
                    assert cell.get("id") in bug.cells.get(folder, ()), (
                        f"{folder}/{cell.get('id')} cites {bug.key}: list it in autograder/maintain/upstream_bugs.py")


def test_the_message_names_notebooks_and_cells():
    bug = next(b for b in BUGS if b.key == "pytorch#197867")
    message = bug.update_message()
    assert message.startswith("pytorch#197867 no longer reproduces")
    assert "update 10b (md-0, md-fwd-5, demo-fwd-5, md-43)" in message and " and 14 (md-15-lse-jvp, demo-19-forward)" in message
