"""Synthetic students built from the course release and the zoo of wrong answers (tests/zoo/).

A zoo entry is the full source of one answer cell containing one realistic mistake; its first lines say
what the mistake is (`# mistake: ...`), a phrase the feedback must contain (`# feedback: ...`) and the mistake
code(s) of the tests whose feedback carries that phrase (`# code: ...`, several separated by `|`; every one is a code
of autograder/engine/mistakes.py and must be among the codes of the tests the entry fails).
"""

from __future__ import annotations

from dataclasses import dataclass
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


def zoo(root: Path | None = None) -> list[ZooEntry]:
    root = root or paths.ZOO
    entries = []
    for path in sorted(root.glob("*/*.py")):
        text = path.read_text()
        header = {}
        for line in text.splitlines():
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(":")
            header[key.strip()] = value.strip()
        codes = tuple(c.strip() for c in header.get("code", "").split("|") if c.strip())
        entries.append(ZooEntry(path.parent.name, path.stem, path, text, header.get("mistake", ""),
                                header.get("feedback", ""), codes))
    return entries


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
