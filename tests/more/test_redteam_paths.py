"""Red team, other notebooks: answers that behave as asked only on the path the grader uses, or keep what they keep
where a scan does not look. Each file in tests/redteam/attacks/judge/ with an `# exercise:` header is such an
answer (in the folder of the layer that stops it, tests/redteam/LAYERS.md; the judge's ids are bare names, the
others' `<layer>/<name>`); it must score, on its exercise's own tests, no more than the same mistake without the disguise (the zoo
entry its `# base:` header names) or than its `# due:`.

- Stand-in detection (`standin-*`): the judge's direct calls of forward/backward use a stand-in ctx an answer can
  recognise. `{JUDGED}` in the file is replaced by each way of recognising it (DETECTORS): by type, by module, by
  the MRO, by the node attributes it lacks. No point rests on the direct call alone: the checks read the same
  property of the node autograd made (docs/threat-model.md).
- Tensors kept out of a scan's reach (`kept-*`): a list nested deeper than any walk, a deque, a global keyed by
  id(ctx). Tensors kept for backward are found by what is alive after the call.
- A Function that fails on non-leaf inputs (`nonleaf-*`) loses the points of the saved-tensor tests.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.engine import grading, notebooks
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

pytestmark = pytest.mark.xdist_group("redteam")

HERE = Path(__file__).parent.parent / "redteam" / "attacks"   # every layer's folder: <layer>/<name>.py
LIMITS = Limits(seconds_per_test=90)
SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
ZOO = {(e.exercise, e.name): e.source for e in samples.zoo()}

# Ways to tell the judge's stand-in ctx from autograd's own node.
DETECTORS = {
    "type": "not isinstance(ctx, torch._C._FunctionBase)",
    "module": 'type(ctx).__module__.startswith("autograder")',
    "mro": 'any(k.__module__.startswith("autograder") for k in type(ctx).__mro__)',
    "node-attributes": 'not hasattr(ctx, "next_functions")',
}


header = samples.header  # the zoo's header reader: `# key: value` lines


FILES = sorted(p for p in HERE.glob("*/*.py") if "exercise" in header(p.read_text()))
CASES = [(p, d) for p in FILES for d in (DETECTORS if "{JUDGED}" in p.read_text() else [None])]
IDS = [(p.stem if p.parent.name == "judge" else f"{p.parent.name}/{p.stem}") + (f"[{d}]" if d else "")
       for p, d in CASES]


@pytest.fixture(scope="module")
def sandbox():
    with grading.new_sandbox() as box:
        yield box


def own_points(sandbox, exercise: str, answer: str) -> tuple[float, list]:
    """Points of the exercise's own tests, and what it lost."""
    source = EXERCISE_TO_SOURCE[exercise]
    _, nb = samples.student_notebook(source.assignment, {exercise: answer})
    report, _ = grading.grade_text(nbformat.writes(nb), f"{source.assignment}.ipynb", sandbox, limits=LIMITS)
    own = [c for c in report.cells if c.grade_id.startswith(f"test_{exercise}_")]
    return sum(c.points for c in own), [(c.grade_id, c.feedback) for c in own if c.status != "passed"]


_BASELINES: dict = {}


def due(sandbox, meta: dict) -> float:
    if "due" in meta:
        return float(meta["due"])
    key = (meta["exercise"], meta["base"])
    if key not in _BASELINES:
        _BASELINES[key] = own_points(sandbox, meta["exercise"], ZOO[key])[0]
    return _BASELINES[key]


@pytest.mark.parametrize(("path", "detector"), CASES, ids=IDS)
def test_answer_for_the_graders_path_gains_nothing(path, detector, sandbox):
    text = path.read_text()
    meta = header(text)
    answer = text.replace("{JUDGED}", DETECTORS[detector]) if detector else text
    points, lost = own_points(sandbox, meta["exercise"], answer)
    assert points <= due(sandbox, meta), (points, lost)


def test_every_file_names_its_exercise_and_what_it_is_held_to():
    assert FILES, "no attack on another notebook"
    for path in FILES:
        meta = header(path.read_text())
        assert meta["exercise"] in EXERCISE_TO_SOURCE, path.name
        assert "due" in meta or (meta["exercise"], meta.get("base")) in ZOO, path.name
