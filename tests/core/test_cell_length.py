"""No code cell a learner receives is longer than 40 lines: figure and widget plumbing lives in
autograder/figures.py and autograder/widgets.py, and a longer demonstration is split into cells that each
make one point.

The released notebooks are computed from solutions/ the way release does it (nbgrader): hidden tests are
removed and each `### BEGIN SOLUTION` ... `### END SOLUTION` block becomes nbgrader's code stub. So this test holds
for course/ as soon as release has run, and checks solutions/ before it has.
"""

import re

import pytest

from autograder.engine import notebooks
from autograder.classroom.nbgrader_setup import CODE_STUB
from autograder.paths import ROOT

LIMIT = 40
SOLUTION = re.compile(r"^([ \t]*)### BEGIN SOLUTION.*?### END SOLUTION[ \t]*$", re.M | re.S)


def released_source(source: str) -> str:
    """What the learner sees of a cell: no hidden tests, each solution block replaced by the code stub."""
    source = notebooks.without_hidden_tests(source)
    return SOLUTION.sub(lambda m: "\n".join(m.group(1) + line for line in CODE_STUB.splitlines()), source)


SOURCES = sorted((ROOT / "solutions").glob("*/*.ipynb"))
RELEASED = sorted((ROOT / "course").glob("*/*.ipynb"))


def long_cells(path, release: bool):
    nb = notebooks.read(path)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        lines = len((released_source(cell.source) if release else cell.source).splitlines())
        if lines > LIMIT:
            found.append(f"{cell.get('id') or notebooks.nbgrader_meta(cell).get('grade_id')}: {lines} lines")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_released_cells_from_solutions(path):
    found = long_cells(path, release=True)
    assert not found, f"{path.parent.name}: code cells over {LIMIT} lines: {found}"


@pytest.mark.parametrize("path", RELEASED, ids=lambda p: p.parent.name)
def test_course_cells(path):
    found = long_cells(path, release=False)
    assert not found, (f"course/{path.parent.name}: code cells over {LIMIT} lines (run release after "
                       f"shortening solutions/): {found}")
