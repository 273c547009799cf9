"""The package's layers: `autograder.shared` is a leaf that engine and course both import; the checks never
import the engine, and the engine names the checks only at run time (a probe by name, a stand-in ctx's class)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "autograder"


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_shared_is_a_leaf():
    assert not {n for n in imports_of(PACKAGE / "shared.py") if n.startswith("autograder")}


@pytest.mark.parametrize("path", sorted((PACKAGE / "checks").glob("*.py")), ids=lambda p: p.name)
def test_the_checks_never_import_the_engine(path):
    assert not {n for n in imports_of(path) if n.startswith("autograder.sandbox")}, path.name


@pytest.mark.parametrize("path", sorted((PACKAGE / "sandbox").glob("*.py")), ids=lambda p: p.name)
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
