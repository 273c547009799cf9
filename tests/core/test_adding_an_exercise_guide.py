"""The guide to adding an exercise (docs/adding-an-exercise.md) cannot go stale: every path and folder it names
exists (a placeholder such as `<Exercise>` or `NN_name` must match at least one), every `make` target is the
Makefile's, every `python -m autograder ...` command parses with the real command line, every cell id and grade id
it quotes is a notebook's, and the code and metadata it quotes are the course's own."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import re
import shlex

import pytest

from helpers import ROOT

GUIDE = ROOT / "docs" / "adding-an-exercise.md"
TEXT = GUIDE.read_text(encoding="utf-8")
TOP = ("solutions", "autograder", "tests", "docs", "course", "tools", "requirements")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./*<>-]*)" % "|".join(TOP))
PLACEHOLDER = re.compile(r"<[^>/]+>|NN_name")


def fenced_blocks(markdown: str) -> list[tuple[str, list[str]]]:
    """(language, lines) of every fenced code block, indented ones included."""
    blocks, language, lines = [], None, []
    for line in markdown.splitlines():
        if line.strip().startswith("```"):
            if language is None:
                language, lines = line.strip()[3:].strip(), []
            else:
                blocks.append((language, lines))
                language = None
            continue
        if language is not None:
            lines.append(line.strip())
    return blocks


def code_spans(markdown: str) -> list[str]:
    """Every line of a fenced block, and every inline code span (one that runs over a line break joined with a
    space, as markdown renders it)."""
    spans = [line for _, lines in fenced_blocks(markdown) for line in lines]
    outside = re.sub(r"^\s*```.*?^\s*```", "", markdown, flags=re.M | re.S)
    inline = re.findall(r"(?<!`)`([^`]+)`(?!`)", outside)
    return spans + [" ".join(line.strip() for line in span.splitlines()) for span in inline if "\n\n" not in span]


SPANS = code_spans(TEXT)


def named_paths() -> list[str]:
    return sorted({m.group(1).rstrip(".") for m in PATH.finditer(TEXT)})


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return {m.group(1) for m in re.finditer(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.M)}


def autograder_commands() -> list[tuple[str, list[str]]]:
    """(module, arguments) of each `python -m autograder[.module] ...` the guide shows."""
    found = []
    for span in SPANS:
        for piece in re.split(r"&&|;", span):
            match = re.search(r"-m (autograder(?:\.\w+)*)(?=\s|$)", piece)
            if match:
                words = shlex.split(piece[match.end():], comments=True)
                found.append((match.group(1), words))
    return found


def test_every_path_it_names_exists():
    paths = named_paths()
    assert len(paths) >= 30, paths
    missing = []
    for name in paths:
        if PLACEHOLDER.search(name) or "*" in name:
            pattern = PLACEHOLDER.sub("*", name).rstrip("/")
            if not list(ROOT.glob(pattern)):
                missing.append(f"{name} (nothing matches {pattern})")
        elif not (ROOT / name).exists():
            missing.append(name)
    assert not missing, f"docs/adding-an-exercise.md names paths that do not exist: {missing}"


def test_every_test_file_it_names_exists():
    named = sorted({p for p in named_paths() if re.fullmatch(r"tests/(core|more)/test_\w+\.py", p)})
    assert len(named) >= 15, named
    assert "tests/core/test_adding_an_exercise_guide.py" in named, "the guide names the test that keeps it current"
    assert not [p for p in named if not (ROOT / p).is_file()]


def test_every_make_target_it_names_is_the_makefiles():
    named = {m.group(1) for span in SPANS for m in re.finditer(r"(?:^|\s)make ([a-z][\w-]*)", span)}
    assert {"test", "test-fast", "release", "matrix"} <= named, named
    unknown = named - make_targets()
    assert not unknown, f"the Makefile has no target {sorted(unknown)}"


class Parsed(Exception):
    """Raised in place of running a module's main once its arguments parsed."""


def test_every_autograder_command_it_names_parses(monkeypatch):
    from autograder import cli

    commands = autograder_commands()
    assert {"autograder", "autograder.maintain.probe_share"} <= {module for module, _ in commands}, commands
    seen = []
    for name in [n for n in dir(cli) if n.startswith("cmd_")]:
        monkeypatch.setattr(cli, name, lambda args, _name=name: seen.append(_name) or 0)
    original = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):
        original(self, args, namespace)
        raise Parsed

    for module, argv in commands:
        shown = f"python -m {module} {shlex.join(argv)}".strip()
        if module == "autograder":
            seen.clear()
            try:
                assert cli.main(argv) == 0
            except SystemExit as error:  # argparse's way of refusing
                pytest.fail(f"`{shown}` does not parse (exit {error.code})")
            assert seen == [f"cmd_{argv[0]}"], (shown, seen)
            continue
        assert importlib.util.find_spec(module) is not None, f"`{shown}`: no module {module}"
        main = getattr(importlib.import_module(module), "main", None)
        assert callable(main), f"`{shown}`: {module} has no main()"
        if not argv:
            continue
        with monkeypatch.context() as patch:
            patch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
            try:
                main(argv)
            except Parsed:
                continue
            except SystemExit as error:
                pytest.fail(f"`{shown}` does not parse (exit {error.code})")
        pytest.fail(f"`{shown}`: {module}.main never parsed its arguments")


def _solution_cells() -> list[dict]:
    cells = []
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        cells += json.loads(path.read_text(encoding="utf-8"))["cells"]
    return cells


CELLS = _solution_cells()


def test_the_ids_it_quotes_are_the_notebooks():
    ids = {c.get("id") for c in CELLS}
    grade_ids = {c["metadata"].get("nbgrader", {}).get("grade_id") for c in CELLS}
    quoted_ids = {s for s in SPANS if re.fullmatch(r"(?:md|demo|answer|test|setup)-[\w-]+|grading-note|selfcheck", s)}
    quoted_ids |= {m for s in SPANS for m in re.findall(r'"((?:md|demo)-[\w-]+)"', s)}
    quoted_grade_ids = {m for s in SPANS for m in re.findall(r"\b((?:answer|test)_[A-Z][A-Za-z]*(?:_[a-z]+)*)\b", s)}
    assert len(quoted_ids) >= 8 and len(quoted_grade_ids) >= 3, (quoted_ids, quoted_grade_ids)
    assert not quoted_ids - ids, f"no notebook cell has the ids {sorted(quoted_ids - ids)}"
    unknown = sorted(quoted_grade_ids - grade_ids)
    assert not unknown, f"no notebook cell has the grade ids {unknown}"


def test_a_cells_id_is_its_grade_id_as_the_guide_says():
    assert CELLS
    differ = [(c.get("id"), c["metadata"].get("nbgrader", {}).get("grade_id")) for c in CELLS
              if c["metadata"].get("nbgrader", {}).get("grade_id", "").replace("_", "-") != c.get("id")]
    assert not differ, differ[:5]


def test_the_metadata_it_quotes_is_the_notebooks():
    quoted = [json.loads(s) for s in SPANS if s.startswith('{"grade":')]
    assert len(quoted) == 2, quoted
    metadata = [c["metadata"].get("nbgrader") for c in CELLS]
    assert all(q in metadata for q in quoted), quoted


def test_the_code_it_quotes_is_the_courses():
    """Each line of a quoted block (`...` aside) is a line of the course: a notebook cell, a check module, a zoo
    or honest answer; a markdown block's lines are README.md's."""
    sources = ["".join(c["source"]) for c in CELLS]
    for folder, pattern in (("autograder/checks", "**/*.py"), ("tests/zoo", "*/*.py"), ("tests/honest", "*/*.py")):
        sources += [p.read_text() for p in sorted((ROOT / folder).glob(pattern))]
    course_lines = {line.strip() for text in sources for line in text.splitlines()}
    readme_lines = {line.strip() for line in (ROOT / "README.md").read_text().splitlines()}
    checked = 0
    for language, lines in fenced_blocks(TEXT):
        known = {"python": course_lines, "markdown": readme_lines}.get(language)
        if known is None:
            continue
        stale = [line for line in lines if line and line != "..." and line not in known]
        assert not stale, f"the guide quotes {language} lines the course no longer has: {stale}"
        checked += 1
    assert checked >= 4


def test_the_mistake_lines_and_counts_it_quotes_are_current():
    from autograder.engine import mistakes

    quoted = [m.groups() for s in SPANS if (m := re.fullmatch(r'"([a-z0-9-]+)": "([^"]+)"', s))]
    assert quoted
    for code, meaning in quoted:
        assert mistakes.MISTAKES.get(code) == meaning, f"mistakes.py's line for {code} changed"
    stated = re.search(r"notebooks 00–14, (\d+) today", TEXT)
    from autograder.maintain import samples

    assert stated and int(stated.group(1)) == len(samples.rules()), \
        "the guide's count of the exercises with declared rules is not tests/zoo/rules.toml's"
