"""Two conventions every check module keeps, read off the source.

- **One visible/hidden convention.** A check's breadth is its `cases=` argument: the default is what the
  visible test cell runs (the call in the visible part passes no `cases=`), the hidden block passes the
  module's larger table. No check takes a `hidden` flag and none is a separate `*_hidden` function.
- **One explain mechanism.** An error becomes a `Mistake` through a module's table of `Rule`s
  (`autograder/checks/explain.py`): no `_explain*` functions, no `except` block that calls `fail` itself, and
  no check that reads another mistake's message back (it reads `mistake.facts`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from autograder.engine import notebooks

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "autograder" / "checks"
# Building blocks, not one notebook's checks.
SHARED = {"__init__", "common", "explain", "behaviour", "decisions"}
# module -> file, by dotted name below autograder.checks (a family folder is its face, `__init__.py`)
FILES = {".".join(p.relative_to(CHECKS).with_suffix("").parts[:-1] if p.name == "__init__.py" else
                  p.relative_to(CHECKS).with_suffix("").parts) or "__init__": p for p in CHECKS.rglob("*.py")}
MODULES = sorted(m for m in FILES if m not in SHARED)
# Modules still on the old spellings; each leaves this set when it is converted, and the set must end empty.
NOT_YET: set[str] = set()


def _tree(module: str) -> ast.Module:
    return ast.parse(FILES[module].read_text())


def _public_functions(module: str):
    return [n for n in _tree(module).body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


def _converted():
    return [m for m in MODULES if m not in NOT_YET]


@pytest.mark.parametrize("module", _converted())
def test_no_hidden_flag_and_no_hidden_twin(module):
    for fn in _public_functions(module):
        names = [a.arg for a in fn.args.args + fn.args.kwonlyargs]
        assert "hidden" not in names, f"{module}.{fn.name} takes `hidden`: give it `cases=` instead"
        assert "seeds" not in names, f"{module}.{fn.name} takes `seeds`: a seed is a case, give it `cases=`"
        assert not fn.name.endswith("_hidden"), f"{module}.{fn.name}: fold it into its visible twin with `cases=`"


def _grade_cells():
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        for cell in notebooks.read(path).cells:
            source = cell.source
            if "### BEGIN HIDDEN TESTS" in source and "autograder.checks import" in source:
                yield path.parent.name, cell.metadata.get("nbgrader", {}).get("grade_id"), source


def _module_of(source: str) -> str | None:
    m = re.search(r"from autograder\.checks import (\w+) as check", source)
    return m.group(1) if m else None


def _check_calls(source: str):
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "check"):
            yield node


CELLS = list(_grade_cells())


def test_every_grade_cell_is_read():
    assert len(CELLS) > 60


@pytest.mark.parametrize("notebook, grade_id, source", CELLS, ids=[c[1] for c in CELLS])
def test_visible_part_runs_the_default_and_hidden_block_passes_cases(notebook, grade_id, source):
    module = _module_of(source)
    if module in SHARED:
        pytest.skip(f"{module}: its hidden block runs another check (the labels), not more cases")
    if module is None or module in NOT_YET:
        pytest.skip(f"{module} is not converted yet")
    hidden = notebooks.HIDDEN.search(source).group(0)
    visible = notebooks.without_hidden_tests(source)
    for call in _check_calls(visible):
        keywords = {k.arg for k in call.keywords}
        assert not keywords & {"cases", "hidden", "seeds"}, f"{grade_id}: the visible part runs the default cases"
    calls = list(_check_calls(hidden.replace("### BEGIN HIDDEN TESTS", "").replace("### END HIDDEN TESTS", "")))
    assert calls, f"{grade_id}: the hidden block calls no check"
    for call in calls:
        keywords = {k.arg for k in call.keywords}
        assert "cases" in keywords, f"{grade_id}: check.{call.func.attr} in the hidden block passes no cases="
        assert not keywords & {"hidden", "seeds"}, f"{grade_id}: check.{call.func.attr} still passes hidden/seeds"


@pytest.mark.parametrize("module", _converted() + ["common"])
def test_errors_become_mistakes_through_rules(module):
    tree = _tree(module)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            assert not node.name.startswith(("_explain", "explain")), \
                f"{module}.{node.name}: put its cases in the module's Rule table"
        if isinstance(node, ast.ExceptHandler):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    name = inner.func.attr if isinstance(inner.func, ast.Attribute) else getattr(inner.func, "id", "")
                    assert name != "fail", (f"{module}.py:{inner.lineno}: an except block that fails by hand; "
                                            "give the error a Rule (explain.explained)")
        if isinstance(node, ast.Attribute) and node.attr == "message":
            raise AssertionError(f"{module}.py:{node.lineno}: reads a mistake's message; read mistake.facts")


def test_not_yet_is_only_modules_that_exist():
    assert NOT_YET <= set(MODULES)


def test_a_rule_counts_positions_from_1_and_keeps_the_calls_own_names():
    from autograder.checks.explain import Rule, explain
    from autograder.engine.shared import Mistake

    rules = (Rule("at", r"index (?P<index>\d+) in (?P<what>\w+)", "{what}: input {position}", types=(ValueError,)),
             Rule("fixed", "fixed", "{what}: input {position}", facts={"index": 2}))
    with pytest.raises(Mistake) as caught:
        explain(ValueError("bad index 0 in thing"), "Square.backward", rules)
    assert caught.value.message == "Square.backward: input 1" and caught.value.facts["position"] == 1
    with pytest.raises(Mistake) as caught:
        explain(RuntimeError("fixed"), "f", rules)
    assert caught.value.message == "f: input 3"
    assert explain(TypeError("other"), "f", rules) is None
