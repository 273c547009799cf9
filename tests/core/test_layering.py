"""The package's layers: `autograder.engine.shared` is a leaf that engine and course both import; the checks never
import the engine, and the engine names the checks only at run time (a probe by name, a stand-in ctx's class) and
reaches the course through one entry point (`paths.COURSE_PRELOAD`). A name has one address: no module imports
another's private names, no module outside the checks' faces re-exports, and a family of checks is a folder."""

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
    """root.py imports every check module once, through the course's preload entry point: not by name."""
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
    "engine": set(),  # the course reaches it through paths.COURSE_PRELOAD (test_the_engine_names_no_path_of_the_course)
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


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def private_reaches(path: Path) -> list[str]:
    """Where `path` uses another autograder module's private name: `from autograder.x import _y`, or `m._y` for a
    module `m` it imported (a name with a leading underscore is its own module's; shared, it is public there)."""
    tree = ast.parse(path.read_text())
    modules, found = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autograder":
            found += [f"{path.name}:{node.lineno} imports {node.module}.{a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
            modules |= {a.asname or a.name for a in node.names if not a.name[:1].isupper()}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.asname and a.name.split(".")[0] == "autograder"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(f"{path.name}:{node.lineno} reads {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_reaches_another_modules_private_names(path):
    assert not private_reaches(path)


def test_the_private_names_rule_can_fail(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from autograder.classroom.submissions import _atomic_write\n"
                      "from autograder.checks import common as c\nc._snapshot(1)\nc.public(2)\n")
    assert [r.split(" ", 1)[1] for r in private_reaches(sample)] == [
        "imports autograder.classroom.submissions._atomic_write", "reads c._snapshot"]


def reexports(path: Path) -> list[str]:
    """The autograder names `path` imports at its top level and never uses: names kept only for others to read
    through it (a second address)."""
    tree = ast.parse(path.read_text())
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        e.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets) for e in ast.walk(n.value)
        if isinstance(e, ast.Constant)}
    return [f"{node.module}.{a.name}" for node in tree.body if isinstance(node, ast.ImportFrom) and node.module
            and node.module.split(".")[0] == "autograder" for a in node.names if (a.asname or a.name) not in used]


def is_a_checks_face(path: Path) -> bool:
    """The checks' faces: the package itself and each family folder's `__init__.py`, the modules the notebooks
    import (`from autograder.checks import capstone as check`), which name their family's parts."""
    return path.name == "__init__.py" and PACKAGE / "checks" in (path.parent, path.parent.parent)


@pytest.mark.parametrize("path", [p for p in MODULES if not is_a_checks_face(p)],
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_outside_the_checks_faces_reexports(path):
    assert not reexports(path), f"import these from where they are defined, not through {path.name}"


def test_the_reexport_rule_can_fail(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from autograder.classroom.submissions import home, discover  # noqa: F401\nhome()\n")
    assert reexports(sample) == ["autograder.classroom.submissions.discover"]


def family_prefixes(folder: Path) -> list[str]:
    """Modules of `folder` that belong in a family folder: a `<family>_*.py` beside the family's folder or face,
    or two modules sharing their first word (`shapes_direct.py` beside `shapes_sumdim.py`)."""
    stems = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    folders = {p.name for p in folder.iterdir() if (p / "__init__.py").exists()}
    words = [s.split("_")[0] for s in stems]
    return [s for s in stems if any(s.startswith(f + "_") for f in folders | set(stems))
            or words.count(s.split("_")[0]) > 1]


def test_the_families_of_checks_are_folders():
    checks = PACKAGE / "checks"
    assert not family_prefixes(checks), "move each family into checks/<family>/, its face as the __init__.py"
    folders = [p for p in checks.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert all((p / "__init__.py").exists() for p in folders), "a family folder is a package whose face is __init__"
    assert not sorted((PACKAGE / "classroom").glob("gradescope_*.py")), "Gradescope's parts live in classroom/gradescope/"


def test_the_family_rule_can_fail(tmp_path):
    (tmp_path / "capstone").mkdir()
    (tmp_path / "capstone" / "__init__.py").write_text("")
    for name in ("capstone_rules", "shapes_direct", "shapes_sumdim", "square", "safe_gradients"):
        (tmp_path / f"{name}.py").write_text("")
    assert family_prefixes(tmp_path) == ["capstone_rules", "shapes_direct", "shapes_sumdim"]


COURSE_WINGS = {"checks", "kernels", "references"}


def course_paths(path: Path) -> list[str]:
    """Where an engine module names the course's files: a string (docstrings aside) naming one of its folders as
    a path (as root.py once did, to list checks/ and import what it found) or one of its modules by address (the
    course declares those in paths: CHECKS, CHECKS_COMMON, RECORD_*)."""
    tree = ast.parse(path.read_text())
    docs, found = _docstrings(tree), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            parts = set(node.value.replace("\\", "/").split("/"))
            dotted = node.value.split(":")[0].split(".")
            if node.value in COURSE_WINGS or (len(parts) > 1 and parts & COURSE_WINGS) \
                    or (dotted[:1] == ["autograder"] and set(dotted[1:2]) & COURSE_WINGS):
                found.append(f"{path.name}:{node.lineno} names {node.value!r}")
    return found


@pytest.mark.parametrize("path", sorted((PACKAGE / "engine").rglob("*.py")),
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_the_engine_names_no_path_of_the_course(path):
    """The course gives the engine one entry point, `paths.COURSE_PRELOAD` (its checks, notebook 16's kernel, the
    warm-ups it names), and its judge-only folders, `paths.JUDGE_ONLY`: the engine lists none of its folders."""
    assert not course_paths(path)


def test_the_course_path_rule_can_fail(tmp_path):
    sample = tmp_path / "root.py"
    sample.write_text('"""Docs may say autograder/checks/."""\nfrom pathlib import Path\n'
                      'checks = Path(__file__).parents[2] / "checks"\nfor p in checks.glob("*.py"):\n    pass\n'
                      'ref = "autograder/references"\nother = "engine/sandbox"\n'
                      'probe = "autograder.checks.behaviour.record:after_call"\nengine = "autograder.engine.shared"\n')
    assert sorted(r.split(" ", 1)[1] for r in course_paths(sample)) == [
        "names 'autograder.checks.behaviour.record:after_call'", "names 'autograder/references'", "names 'checks'"]


def test_the_course_preload_entry_point_is_the_courses():
    """The one entry point the engine is given lies in the checks' wing, and does what the root needs of it."""
    import importlib

    from autograder import paths

    assert paths.COURSE_PRELOAD.split(".")[:2] == ["autograder", "checks"]
    preload = importlib.import_module(paths.COURSE_PRELOAD)
    names = preload.check_modules()
    on_disk = {".".join(("autograder",) + p.relative_to(PACKAGE).with_suffix("").parts)
               for p in (PACKAGE / "checks").rglob("*.py") if not p.stem.startswith("_")}
    on_disk |= {".".join(("autograder",) + p.parent.relative_to(PACKAGE).parts)
                for p in (PACKAGE / "checks").glob("*/__init__.py")}
    assert set(names) == on_disk  # every module of every family folder, the faces' parts included
    assert all(p.exists() for p in paths.JUDGE_ONLY)
