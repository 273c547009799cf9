"""The package's layers: `autograder.engine.shared` is a leaf that engine and course both import; the checks never
import the engine, and the engine names the checks only at run time (a probe by name, a stand-in ctx's class)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "autograder"


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_shared_is_a_leaf():
    assert not {n for n in imports_of(PACKAGE / "engine" / "shared.py") if n.startswith("autograder")}


@pytest.mark.parametrize("path", sorted((PACKAGE / "checks").rglob("*.py")),
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_the_checks_never_import_the_engine(path):
    assert not {n for n in imports_of(path) if n.startswith("autograder.engine.sandbox")}, path.name


@pytest.mark.parametrize("path", sorted((PACKAGE / "engine" / "sandbox").glob("*.py")), ids=lambda p: p.name)
def test_the_engine_never_imports_the_checks_by_name(path):
    """root.py imports every check module once, by listing the folder (so a fork has them): not a name."""
    assert not {n for n in imports_of(path) if n.startswith("autograder.checks")}, path.name


def test_the_grader_process_never_imports_torch(tmp_path):
    """`grade` and the `autograde` walk run in a process that never imports PyTorch (the sandbox's root does):
    the CLI is started for real and its modules are read at exit."""
    import subprocess
    import sys

    from autograder import paths

    notebook = paths.SOLUTIONS / "01_square" / "01_square.ipynb"
    program = ("import atexit, sys, runpy\n"
               "atexit.register(lambda: print('TORCH-IMPORTED' if 'torch' in sys.modules else 'NO-TORCH',"
               " file=sys.stderr))\n"
               f"sys.argv = ['autograder', 'grade', {str(notebook)!r}, '--json']\n"
               "runpy.run_module('autograder', run_name='__main__')\n")
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600,
                         env={**__import__("os").environ, "AUTOGRADER_HOME": str(tmp_path)})
    assert '"score": 3.0' in run.stdout, run.stderr[-2000:]
    assert "NO-TORCH" in run.stderr, run.stderr[-2000:]


# The wings and what each may import (besides itself and `autograder.paths`, the leaf every wing may read). The
# learner's helpers are the top-level modules the notebooks import (lab, figures, widgets, selfcheck); the front
# door is the CLI. A wing that is not in a row's set may not be imported from it: the engine never reaches a
# class operation or a maintainer's tool, the checks reach only the engine's shared vocabulary.
MAY_IMPORT = {
    "engine": {"kernels"},
    # notebooks: a cell's role; references: judge-only, imported inside a check (tests/core/test_no_reference_answers.py)
    "checks": {"engine.shared", "engine.mistakes", "engine.notebooks", "kernels", "references"},
    "kernels": set(),
    "references": set(),
    "paths": set(),
    "classroom": {"engine"},
    "maintain": {"engine", "checks", "classroom"},
    "site": {"engine"},
    "learner": {"engine", "checks"},
    "front": {"engine", "classroom", "maintain", "site", "learner", "version"},
}
LEARNER_HELPERS = {"lab", "figures", "widgets", "selfcheck"}
FRONT_DOOR = {"cli", "__main__", "__init__"}


def wing_of(parts: tuple[str, ...]) -> str:
    """The wing of a module, from its dotted path below `autograder` (("engine", "sandbox", "judge") -> engine)."""
    if not parts or parts[0] in FRONT_DOOR:
        return "front"
    return "learner" if parts[0] in LEARNER_HELPERS else parts[0]


def imported_modules(path: Path) -> set[tuple[str, ...]]:
    """Every autograder module `path` imports, as dotted parts below `autograder` (from autograder import x: x)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {tuple(a.name.split(".")[1:]) for a in node.names if a.name.split(".")[0] == "autograder"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autograder":
            base = tuple(node.module.split(".")[1:])
            found |= {base + (a.name,) for a in node.names}   # a module or a name in one: read as a prefix
    return found


def allowed(source_wing: str, target: tuple[str, ...]) -> bool:
    target_wing = wing_of(target)
    if target_wing in (source_wing, "paths") or (target == ("__version__",) and "version" in MAY_IMPORT[source_wing]):
        return True
    return any(target[:len(rule.split("."))] == tuple(rule.split("."))
               or (rule == target_wing) for rule in MAY_IMPORT[source_wing])


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "build" not in p.relative_to(PACKAGE).parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_each_module_imports_only_the_wings_its_own_may(path):
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    source = wing_of(parts)
    assert source in MAY_IMPORT, f"{path}: a new wing? add it to MAY_IMPORT"
    wrong = sorted(".".join(t) for t in imported_modules(path) if not allowed(source, t))
    assert not wrong, f"{'/'.join(parts)} (wing {source}) may not import {wrong}"


def test_the_top_level_holds_only_the_front_door_paths_and_the_learners_helpers():
    """New code goes into a wing: the top level is what `python -m autograder` and the notebooks import."""
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    helper_packages = packages & LEARNER_HELPERS            # a helper split by concept (figures/) stays a helper
    top = {p.stem for p in PACKAGE.glob("*.py")} | helper_packages
    assert top == FRONT_DOOR | LEARNER_HELPERS | {"paths"}, sorted(top)
    wings = packages - helper_packages
    assert wings == set(MAY_IMPORT) - {"learner", "front", "paths"}, sorted(wings)


LINE_LIMIT = 400  # a module a reader takes in at one sitting; past it, split by concept


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_is_over_the_line_limit(path):
    lines = len(path.read_text().splitlines())
    assert lines <= LINE_LIMIT, f"{path.relative_to(PACKAGE)} has {lines} lines: split it by concept"
