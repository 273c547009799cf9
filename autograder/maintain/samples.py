"""Synthetic students built from the course release and the zoo of wrong answers (tests/zoo/).

A zoo entry is the full source of one answer cell containing one realistic mistake; its first lines say
what the mistake is (`# mistake: ...`), a phrase the feedback must contain (`# feedback: ...`) and the mistake
code(s) of the tests whose feedback carries that phrase (`# code: ...`, several separated by `|`; every one is a code
of autograder/engine/mistakes.py and must be among the codes of the tests the entry fails), the rule of its
exercise it breaks (`# rule: ...`, declared once per exercise in tests/zoo/rules.toml; an answer that makes several
independent mistakes names each, separated by spaces), the tests of its exercise it
fails (`# fails: ...`, the grade ids' suffixes after `test_<Exercise>_`), its score there (`# score: got/max`) and,
where a test reaches the same cause by another road, the other codes that cause may carry (`# family: code|code`).
The header is read here only (`header`), by every test that reads it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.engine import notebooks
from autograder import paths
from autograder.engine.notebooks import nbgrader_meta, role, strip_markers


@dataclass(frozen=True)
class ZooEntry:
    exercise: str          # answer cell grade_id without "answer_"
    name: str
    path: Path
    source: str
    mistake: str
    feedback: str
    codes: tuple[str, ...] = ()
    rule: str = ""                      # the rule(s) of its exercise it breaks (tests/zoo/rules.toml)
    fails: frozenset = frozenset()      # the tests of its exercise it fails (suffixes after test_<Exercise>_)
    score: tuple[float, float] | None = None
    family: frozenset = field(default_factory=frozenset)

    @property
    def rules(self) -> tuple[str, ...]:
        """Each rule the entry breaks: one for one mistake; an answer with several independent mistakes names each."""
        return tuple(self.rule.split())


def header(text: str) -> dict[str, str]:
    """The `# key: value` lines a zoo entry (or a red-team attack file) opens with, up to the first other line."""
    found = {}
    for line in text.splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(":")
        found[key.strip()] = value.strip()
    return found


_SCORE = re.compile(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)")


def entry_of(path: Path, text: str) -> ZooEntry:
    meta = header(text)
    codes = tuple(c.strip() for c in meta.get("code", "").split("|") if c.strip())
    family = frozenset(c.strip() for c in meta.get("family", "").split("|") if c.strip())
    score = _SCORE.fullmatch(meta.get("score", ""))
    return ZooEntry(path.parent.name, path.stem, path, text, meta.get("mistake", ""), meta.get("feedback", ""),
                    codes, meta.get("rule", ""), frozenset(meta.get("fails", "").split()),
                    (float(score.group(1)), float(score.group(2))) if score else None, family)


def zoo(root: Path | None = None) -> list[ZooEntry]:
    root = root or paths.ZOO
    return [entry_of(path, path.read_text()) for path in sorted(root.glob("*/*.py"))]


UNANSWERED = "unanswered"  # the rule of an unfilled answer: it loses every test of its exercise


@dataclass(frozen=True)
class Rule:
    exercise: str
    name: str
    tests: frozenset       # suffixes after test_<Exercise>_
    points: float
    requires: frozenset = frozenset()  # rules whose property must hold before this one's can be observed at all


def rules(root: Path | None = None) -> dict[str, dict[str, Rule]]:
    """{exercise: {rule name: Rule}}, as tests/zoo/rules.toml declares them (once per exercise)."""
    table = tomllib.loads(((root or paths.ZOO) / "rules.toml").read_text())
    return {exercise: {name: Rule(exercise, name, frozenset(rule["tests"]), float(rule["points"]),
                                  frozenset(rule.get("requires", ())))
                       for name, rule in declared.items()} for exercise, declared in table.items()}


def reference_answers(source) -> dict[str, str]:
    return {nbgrader_meta(c)["grade_id"]: strip_markers(c.source) for c in source.cells("answer")}


def student_notebook(assignment: str, answers: dict[str, str] | None = None, fill: bool = True):
    """The course notebook of `assignment` with answers filled in: `answers` maps an exercise name (or
    answer grade_id) to its source; the others get the reference answer if `fill`, else stay stubs."""
    source = next(s for s in notebooks.sources() if s.assignment == assignment)
    course_path = paths.COURSE / assignment / f"{source.name}.ipynb"
    nb = notebooks.read(course_path) if course_path.exists() else nbformat.from_dict(source.notebook)
    reference = reference_answers(source)
    answers = {(k if k.startswith("answer_") else f"answer_{k}"): v for k, v in (answers or {}).items()}
    for cell in nb.cells:
        if role(cell) == "answer":
            gid = nbgrader_meta(cell)["grade_id"]
            if gid in answers:
                cell.source = answers[gid]
            elif fill:
                cell.source = reference[gid]
    return source, nb


def exercises_of(assignment: str) -> list[str]:
    source = next(s for s in notebooks.sources() if s.assignment == assignment)
    return [g.removeprefix("answer_") for g in source.grade_ids("answer")]


SAMPLE_STUDENTS = ["ada", "grace", "alan", "barbara", "edsger", "margaret"]


def write_sample_class(submitted: Path) -> list[str]:
    """ada answers everything right, grace hands in the unfilled release, and each of the others makes
    the k-th zoo mistake of every exercise (the right answer where the zoo has no k-th entry)."""
    entries = zoo()
    by_exercise: dict[str, list[ZooEntry]] = {}
    for e in entries:
        by_exercise.setdefault(e.exercise, []).append(e)
    for source in notebooks.sources():
        for i, student in enumerate(SAMPLE_STUDENTS):
            if student == "ada":
                _, nb = student_notebook(source.assignment)
            elif student == "grace":
                _, nb = student_notebook(source.assignment, fill=False)
            else:
                k = i - 2
                wrong = {ex: by_exercise[ex][k].source for ex in exercises_of(source.assignment)
                         if len(by_exercise.get(ex, [])) > k}
                _, nb = student_notebook(source.assignment, wrong)
            target = submitted / student / source.assignment / f"{source.name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
    return SAMPLE_STUDENTS
