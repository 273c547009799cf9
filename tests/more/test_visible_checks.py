"""Visible tests check the rule they grade: the share of points whose test cell, as released (hidden block
removed), calls a check of autograder.checks. Run as a script to print the table:

    .venv/bin/python tests/more/test_visible_checks.py
"""

from __future__ import annotations

import ast

from autograder.engine import notebooks

OVERALL_AT_LEAST = 0.75
EVERY_CELL = tuple(f"{n:02d}_" for n in range(10))   # notebooks 00-09: every graded cell has a visible check


def check_modules(tree: ast.AST) -> set[str]:
    """Names bound to autograder.checks modules or their functions by the cell's imports."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograder.checks"):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.asname for alias in node.names
                         if alias.name.startswith("autograder.checks") and alias.asname)
    return names


def calls_a_check(source: str) -> bool:
    tree = ast.parse(source)
    names = check_modules(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if isinstance(func, ast.Name) and func.id in names:
                return True
    return False


def shares() -> dict[str, tuple[float, float]]:
    """assignment -> (points whose released test cell calls a check, all points)."""
    table = {}
    for source in notebooks.sources():
        checked = total = 0.0
        for cell in source.cells("test"):
            points = float(notebooks.nbgrader_meta(cell).get("points", 0))
            total += points
            if calls_a_check(notebooks.without_hidden_tests(cell.source)):
                checked += points
        table[source.assignment] = (checked, total)
    return table


def render(table) -> str:
    rows = [f"{'notebook':32s} {'visible':>8s} {'points':>7s} {'share':>7s}"]
    for name, (checked, total) in table.items():
        rows.append(f"{name:32s} {checked:8g} {total:7g} {checked / total if total else 1:7.0%}")
    checked, total = (sum(v[i] for v in table.values()) for i in (0, 1))
    rows.append(f"{'overall':32s} {checked:8g} {total:7g} {checked / total:7.0%}")
    return "\n".join(rows)


def test_calls_a_check_reads_the_released_code():
    cell = ("from autograder.checks import square as check\n\n### BEGIN HIDDEN TESTS\ncheck.saves_input(Square)\n"
            "### END HIDDEN TESTS\n")
    assert not calls_a_check(notebooks.without_hidden_tests(cell))
    assert calls_a_check(notebooks.without_hidden_tests("from autograder.checks import square as check\n"
                                                        "check.values(Square)\n" + cell))
    assert calls_a_check("from autograder.checks.square import values\nvalues(Square)\n")
    assert not calls_a_check("import torch\ntorch.ones(3)\n")


def test_visible_tests_check_their_rule():
    table = shares()
    print("\n" + render(table))
    checked, total = (sum(v[i] for v in table.values()) for i in (0, 1))
    assert checked / total >= OVERALL_AT_LEAST, render(table)
    short = [name for name, (c, t) in table.items() if name.startswith(EVERY_CELL) and c < t]
    assert not short, f"graded test cells without a visible check in {short}\n" + render(table)


if __name__ == "__main__":
    print(render(shares()))
