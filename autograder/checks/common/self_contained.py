"""The grading model, said while the learner can still see why (`require_self_contained`, re-exported by `common`).

The grader runs only a notebook's setup cells and answer cells. In a learner's kernel every other cell has run
too, so an answer that leans on a name a demonstration defined works there and fails when graded. The first
visible check of each exercise says so.
"""

from __future__ import annotations

import functools
import inspect

from autograder.engine import shared
from autograder.engine.shared import fail


_KERNEL_NAMES = frozenset({"get_ipython", "In", "Out", "exit", "quit", "display"})


def require_self_contained(obj, name: str) -> None:
    """In a notebook: `obj` (the answer called `name`) must not use a global name that exists in this kernel
    but that neither the notebook's setup cells nor its answer cells define. While grading this is a no-op:
    there the name really is missing, and the answer fails with a NameError the grader reports."""
    if shared.learner() is not None:
        return
    try:
        missing = _names_only_this_kernel_has(obj, name)
    except Exception:  # noqa: BLE001 - a limit of this analysis must never block a learner
        return
    if missing:
        other = missing[0]
        fail("outside-answer-cells",
             f"`{name}` uses `{other}`, which only a cell outside the setup and answer cells defines: it works in "
             f"your kernel; the grader won't see `{other}`. The grader runs only the setup cell and the answer "
             f"cells: copy what you need of `{other}` into the answer cell of `{name}` instead of referring to it.")


def _names_only_this_kernel_has(obj, name: str) -> list[str]:
    import builtins

    functions = _own_functions(obj)
    cell = next((f.__code__.co_filename for f in functions if _cell_source(f.__code__.co_filename)), None)
    if cell is None:
        return []          # not defined in a notebook cell (a module, a script, the fast test tier)
    known = _notebook_names(name)
    if known is None:
        return []          # not an exercise of this course
    setup, exercises = known
    namespace = next(f.__globals__ for f in functions if f.__code__.co_filename == cell)
    answer_cells = {cell} | {c for n in exercises if n in namespace for c in _cells_of(namespace[n])}
    allowed = set(setup) | set(exercises)
    for other in answer_cells:
        allowed |= _bound_names(_cell_source(other))
    used, todo, seen = set(), [cell], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        names = _global_loads(compile(_cell_source(current), current, "exec"))
        used |= names
        todo += [c for n in names if n in namespace for c in _cells_of(namespace[n]) if c in answer_cells]
    return sorted(n for n in used if n in namespace and n not in allowed and n not in vars(builtins)
                  and n not in _KERNEL_NAMES and not n.startswith("__"))


def _own_functions(obj) -> list:
    """The plain functions behind `obj`: itself, or the methods a class (and its own bases) defines."""
    found, pending = [], [obj]
    classes = [k for k in getattr(obj, "__mro__", ()) if k.__module__ == getattr(obj, "__module__", None)]
    for klass in classes:
        pending += list(vars(klass).values())
    for item in pending:
        for attribute in ("__func__", "fget", "fset", "fdel"):
            inner = getattr(item, attribute, None)
            if inner is not None and not isinstance(item, type):
                pending.append(inner)
        while hasattr(item, "__wrapped__") and not isinstance(item, type):
            item = item.__wrapped__
        if inspect.isfunction(item) and item not in found:
            found.append(item)
    return found


def _cells_of(value) -> set:
    return {f.__code__.co_filename for f in _own_functions(value) if _cell_source(f.__code__.co_filename)}


def _cell_source(filename: str) -> str:
    """The source of an IPython cell (kept in linecache with no modification time), else ''."""
    import linecache

    entry = linecache.cache.get(filename)
    if not isinstance(entry, tuple) or len(entry) != 4 or entry[1] is not None:
        return ""
    return "".join(entry[2])


def _global_loads(code) -> set:
    import dis

    names = {i.argval for i in dis.get_instructions(code)
             if i.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS")}
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _global_loads(const)
    return names


def _bound_names(source: str) -> set:
    """Every name a cell binds anywhere: assignments, definitions, imports, parameters, `global` names."""
    import ast
    import importlib

    bound = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    bound.update(n for n in dir(importlib.import_module(node.module)) if not n.startswith("_"))
                else:
                    bound.add(alias.asname or alias.name.split(".")[0])
    return bound


@functools.lru_cache(maxsize=None)
def _notebook_names(name: str):
    """(names the setup cells bind, the exercise names) of the course notebook with an answer cell for `name`."""
    import json

    from autograder.engine import notebooks
    from autograder import paths

    for root in (paths.COURSE, paths.SOLUTIONS):
        for path in sorted(root.glob("*/*.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
            ids = [notebooks.nbgrader_meta(cell).get("grade_id", "") for cell in cells
                   if notebooks.role(cell) == "answer"]
            if f"answer_{name}" in ids:
                setup = set()
                for cell in cells:
                    if notebooks.role(cell) == "setup":
                        text = cell.get("source", "")
                        setup |= _bound_names("".join(text) if isinstance(text, list) else text)
                return frozenset(setup), frozenset(i.removeprefix("answer_") for i in ids)
    return None
