"""The registry of mistake codes (autograder/engine/mistakes.py) and the source agree: every code a check can raise
and every id the engine gives an outcome has a meaning there, every entry is one of them, and every zoo entry
names the code its feedback comes with (tests/core/test_fast.py checks that the entry's failing tests carry it).

Codes are read off the source with `ast`: a literal passed to `fail`/`Mistake`/`Rule`; a variable resolved through
its assignments (an `x if ... else y`, a helper's returned literals); a parameter named `code` or `code_*`
(annotated `str` or with a string default) resolved at every call site of its function. A code this reading
cannot resolve fails the test, so a new way of building codes has to come with a way of reading it."""

from __future__ import annotations

import ast
import re
from html import escape
from pathlib import Path

import pytest

from autograder.classroom import class_report
from autograder.engine import mistakes
from autograder.maintain import samples

PACKAGE = Path(__file__).resolve().parents[2] / "autograder"

CODE_PARAM = re.compile(r"^code(_\w+)?$")
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _with_parents(tree):
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node
    return tree


def _enclosing(node):
    while (node := getattr(node, "parent", None)) is not None:
        if isinstance(node, FUNCTIONS):
            return node
    return None


def _callee(call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _text(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _code_params(fn) -> list[str | None]:
    """For each positional parameter of `fn`, its name if it carries a mistake code, else None; then the
    keyword-only ones. A parameter carries a code if it is named `code_*`, or `code` and typed `str` or
    defaulting to a string (a `code` that is a code object is neither)."""
    args = fn.args.posonlyargs + fn.args.args
    defaults = dict(zip(reversed([a.arg for a in args]), reversed(fn.args.defaults)))
    defaults.update({a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None})

    def carries(a) -> bool:
        if not CODE_PARAM.match(a.arg):
            return False
        typed = (isinstance(a.annotation, ast.Name) and a.annotation.id == "str") or (
            _text(a.annotation) and a.annotation.value == "str")
        return a.arg != "code" or typed or _text(defaults.get(a.arg))

    return [a.arg if carries(a) else None for a in args + fn.args.kwonlyargs]


def check_codes() -> tuple[dict[str, list[str]], list[str]]:
    """({code: [file:line, ...]}, [unresolved]) for every code a check in autograder/checks/ can raise."""
    trees = {p.relative_to(PACKAGE / "checks").as_posix(): _with_parents(ast.parse(p.read_text()))
             for p in sorted((PACKAGE / "checks").rglob("*.py"))}
    functions: dict[str, list] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, FUNCTIONS):
                functions.setdefault(node.name, []).append(node)
    found: dict[str, list[str]] = {}

    def returned(name: str, index: int | None) -> list:
        values = []
        for fn in functions[name]:
            for node in ast.walk(fn):
                if isinstance(node, ast.Return) and node.value is not None and _enclosing(node) is fn:
                    value = node.value
                    if index is not None:
                        if not isinstance(value, ast.Tuple):
                            return []
                        value = value.elts[index]
                    values.append(value)
        return values

    def resolve(expr, where: str, depth: int = 0) -> bool:
        """Record every string `expr` can be; False if that cannot be read off the source."""
        if depth > 6:
            return False
        if _text(expr):
            found.setdefault(expr.value, []).append(where)
            return True
        if where.startswith("explain.py:") and ast.unparse(expr) == "rule.code":
            return True  # the explain mechanism raises a Rule's code: every Rule(...) is read where it is built
        if isinstance(expr, ast.IfExp):
            return resolve(expr.body, where, depth + 1) & resolve(expr.orelse, where, depth + 1)
        if isinstance(expr, ast.Call) and _callee(expr) in functions:
            values = returned(_callee(expr), None)
            return bool(values) and all([resolve(v, where, depth + 1) for v in values])
        if not isinstance(expr, ast.Name) or (fn := _enclosing(expr)) is None:
            return False
        arguments = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        if expr.id in [a.arg for a in arguments]:
            return expr.id in _code_params(fn)  # its values are read at the function's call sites
        assigned = []
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and _enclosing(node) is fn:
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id == expr.id:
                        assigned.append(resolve(node.value, where, depth + 1))
                    elif isinstance(target, ast.Tuple):
                        for i, t in enumerate(target.elts):
                            if isinstance(t, ast.Name) and t.id == expr.id:
                                value = node.value
                                if isinstance(value, ast.Tuple):
                                    assigned.append(resolve(value.elts[i], where, depth + 1))
                                elif isinstance(value, ast.Call) and _callee(value) in functions:
                                    values = returned(_callee(value), i)
                                    assigned.append(bool(values) and all([resolve(v, where, depth + 1)
                                                                          for v in values]))
                                else:
                                    assigned.append(False)
        return bool(assigned) and all(assigned)

    unresolved = []
    for file, tree in trees.items():
        for node in ast.walk(tree):
            exprs = []
            if isinstance(node, FUNCTIONS):  # a code parameter's default
                params = node.args.posonlyargs + node.args.args
                defaults = dict(zip(reversed([a.arg for a in params]), reversed(node.args.defaults)))
                defaults.update({a.arg: d for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults)})
                exprs = [defaults[name] for name in _code_params(node) if name and defaults.get(name) is not None]
            elif isinstance(node, ast.Call) and _callee(node) in ("fail", "Mistake", "Rule"):
                exprs = node.args[:1] + [k.value for k in node.keywords if k.arg == "code"]
            elif isinstance(node, ast.Call) and _callee(node) in functions:  # a helper that fails with a code
                for fn in functions[_callee(node)]:
                    names = _code_params(fn)
                    for i, arg in enumerate(node.args):
                        if isinstance(arg, ast.Starred):  # `*args`: positions from here on are unknown
                            exprs += [arg] if any(names[i:]) else []
                            break
                        if i < len(names) and names[i]:
                            exprs.append(arg)
                    exprs += [k.value for k in node.keywords if k.arg is not None and k.arg in names]
            for expr in exprs:
                where = f"{file}:{expr.lineno}"
                if not resolve(expr, where):
                    unresolved.append(f"{where}: {ast.unparse(expr)}")
    return found, unresolved


def engine_ids() -> dict[str, list[str]]:
    """{id: [file:line, ...]} for the mistake ids the engine gives outcomes: the third argument (or `mistake=`)
    of `Outcome(...)` in autograder/engine/sandbox/ and engine/grading.py, the sixth of `CellResult(...)` (classroom/autograde.py's
    unreadable submission), and the codes the learner's process writes into an error it reports."""
    found: dict[str, list[str]] = {}
    files = sorted((PACKAGE / "engine" / "sandbox").glob("*.py")) + [PACKAGE / "engine" / "grading.py", PACKAGE / "classroom" / "autograde.py"]
    for path in files:
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            values = []
            if isinstance(node, ast.Call) and (position := {"Outcome": 2, "CellResult": 5}.get(_callee(node))):
                for arg in node.args[position:position + 1] + [k.value for k in node.keywords if k.arg == "mistake"]:
                    values += arg.values if isinstance(arg, ast.BoolOp) else [arg]  # `cause.mistake or "exception"`
            elif isinstance(node, ast.Call) and _callee(node) == "Mistake":
                values = node.args[:1]
            elif isinstance(node, ast.Assign):  # info["code"] = "exception"
                if any(isinstance(t, ast.Subscript) and _text(t.slice) and t.slice.value == "code"
                       for t in node.targets):
                    values = [node.value]
            for value in values:
                if _text(value):
                    found.setdefault(value.value, []).append(f"{path.name}:{node.lineno}")
        for m in re.finditer(r'"code": "([^"]+)"', text):  # a reply written as text (learner.py's tampering frame)
            found.setdefault(m.group(1), []).append(f"{path.name}:{text[:m.start()].count(chr(10)) + 1}")
    return found


CHECK_CODES, UNRESOLVED = check_codes()
ENGINE_IDS = engine_ids()
ENTRIES = samples.zoo()


def test_every_code_of_the_checks_is_read_off_the_source():
    assert not UNRESOLVED, f"codes built in a way this test cannot read: {UNRESOLVED}"
    assert len(CHECK_CODES) > 150 and "missing-none" in CHECK_CODES and "size1-dropped" in CHECK_CODES


def test_every_code_of_the_checks_has_a_meaning():
    missing = {code: where[:2] for code, where in CHECK_CODES.items() if code not in mistakes.MISTAKES}
    assert not missing, f"add these codes to autograder/engine/mistakes.py: {missing}"


def test_every_engine_id_has_a_meaning():
    assert {"timeout", "process-died", "tampering", "grader-error", "unreadable"} <= set(ENGINE_IDS)
    missing = {code: where[:2] for code, where in ENGINE_IDS.items() if code not in mistakes.MISTAKES}
    assert not missing, f"add these ids to autograder/engine/mistakes.py: {missing}"


def test_no_dead_entries():
    dead = set(mistakes.MISTAKES) - set(CHECK_CODES) - set(ENGINE_IDS)
    assert not dead, f"no check or engine path produces {sorted(dead)}"


def test_each_meaning_is_one_line_of_plain_words():
    tree = ast.parse((PACKAGE / "engine" / "mistakes.py").read_text())
    keys = [k.value for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys
            if isinstance(k, ast.Constant)]
    assert len(keys) == len(set(keys)), "a code is listed twice"
    for code, meaning in mistakes.MISTAKES.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", code), code
        assert meaning and "\n" not in meaning and len(meaning) <= 120 and meaning != code, code


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.exercise}/{e.name}" for e in ENTRIES])
def test_zoo_entry_names_a_registered_code(entry):
    assert entry.codes, f"{entry.path}: add a `# code:` header (the code of the test its feedback phrase is from)"
    unknown = [code for code in entry.codes if code not in mistakes.MISTAKES]
    assert not unknown, f"{entry.path}: {unknown} is not in autograder/engine/mistakes.py"


def test_class_report_shows_each_code_with_its_meaning(tmp_path):
    cells = [{"grade_id": "test_Exp_saves_output", "status": "failed", "mistake": "saves-input"},
             {"grade_id": "test_Exp_values", "status": "error", "mistake": "timeout"},
             {"grade_id": "test_Exp_grad", "status": "failed", "mistake": "some-code-from-elsewhere"},
             {"grade_id": "test_Exp_more", "status": "passed", "mistake": ""}]
    reports = [{"student": "ada", "score": 1.0, "max_score": 4.0, "cells": cells}]
    text = class_report.write(reports, tmp_path / "report.html").read_text()
    for code in ("saves-input", "timeout"):
        assert f"<td><code>{code}</code></td><td>{escape(mistakes.MISTAKES[code])}</td>" in text
    # a code no check declares is the learner's own text: counted, never shown (nor drawn: mathtext would run it)
    assert "some-code-from-elsewhere" not in text
    assert "<td><code>undeclared-code</code></td><td>a code no check of the course declares" in text


def test_the_registry_is_a_leaf():
    tree = ast.parse((PACKAGE / "engine" / "mistakes.py").read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {name for name in imported if name.startswith("autograder")}
