"""The README's layout names every make target `make help` lists (a newcomer reads the layout first)."""

from __future__ import annotations

import re

from helpers import ROOT


def help_targets() -> set[str]:
    """The targets the Makefile's `help` recipe lists (its `@echo "make TARGET ..."` lines)."""
    recipe = ROOT.joinpath("Makefile").read_text().split("\nhelp:\n", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r'@echo "make ([a-z][a-z-]*)', recipe))


def layout_targets() -> set[str]:
    """The targets the README's layout names on its Makefile entry (the line and its continuation lines)."""
    layout = ROOT.joinpath("README.md").read_text().split("## Layout", 1)[1].split("```", 2)[1]
    lines = layout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Makefile "))
    entry = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith(" "):
            break
        entry.append(line)
    return set(re.findall(r"[a-z][a-z-]*", " ".join(entry).split(None, 1)[1]))


def test_the_help_lists_targets():
    assert {"demo", "test", "test-more", "release", "site"} <= help_targets()


def test_the_layout_names_every_target_make_help_lists():
    missing = help_targets() - layout_targets()
    assert not missing, f"README's layout (its Makefile line) does not name: {sorted(missing)}"
