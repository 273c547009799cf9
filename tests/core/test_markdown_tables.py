"""Every markdown table in the README and docs/ has each row as wide as its header: a column added to one table
and spilled into the next renders as a broken table, and nothing else would notice."""

from __future__ import annotations

import re

import pytest

from helpers import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def cells(row: str) -> int:
    """How many cells a table row has: its pipes, less escaped ones and those inside a code span."""
    row = re.sub(r"`[^`]*`", "", row.replace(r"\|", ""))
    return row.strip().strip("|").count("|") + 1


def tables(text: str):
    """(line number, header width, [(line number, width)]) of each table outside fenced code."""
    fenced, table = False, None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            fenced = not fenced
        is_row = not fenced and line.lstrip().startswith("|")
        if is_row and table is None:
            table = (number, cells(line), [])
        elif is_row:
            table[2].append((number, cells(line)))
        elif table is not None:
            yield table
            table = None
    if table is not None:
        yield table


def test_the_row_counter_sees_a_spilled_column():
    broken = "| a | b |\n|---|---|\n| 1 | 2 |\n| 1 | 2 | 3 s |\n"
    [(_, width, rows)] = list(tables(broken))
    assert width == 2 and [w for _, w in rows] == [2, 2, 3]
    assert cells("| `a|b` | c \\| d |") == 2


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_row_is_as_wide_as_its_header(document):
    wrong = [f"line {number}: {width} cells, header {header}"
             for start, header, rows in tables(document.read_text(encoding="utf-8"))
             for number, width in rows if width != header]
    assert not wrong, wrong
