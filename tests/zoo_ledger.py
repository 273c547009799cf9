"""The zoo ledger: what each zoo entry declares (samples.ZooEntry) against what grading it gives, in one place for
both tiers. tests/core/test_zoo_ledger.py grades every entry once in process (the fast tier's runner) and checks every
field; tests/more/test_zoo.py grades every entry through the real sandbox and checks the same verdicts, so the two
roads agree with the header and with each other."""

from __future__ import annotations

import re
from dataclasses import dataclass

from autograder.engine import grading, notebooks
from autograder import paths
from autograder.maintain import samples

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
ENTRIES = samples.zoo()
RULES = samples.rules()
# What the feedback of a test says when its rule's property could not be observed because a rule it `requires`
# (tests/zoo/rules.toml) does not hold: the test is not judged, and the prerequisite's mistake is named.
NOT_JUDGED = "not judged"


@dataclass(frozen=True)
class Graded:
    """One entry's grading: every test run, as {grade id: (points, max points, status, mistake code, feedback)}."""
    results: dict

    def own(self, exercise: str) -> dict:
        """{test suffix: result} of the exercise's own tests."""
        prefix = f"test_{exercise}_"
        return {g.removeprefix(prefix): r for g, r in self.results.items() if g.startswith(prefix)}

    def lost(self, exercise: str) -> dict:
        return {t: r for t, r in self.own(exercise).items() if r[2] != "passed"}

    def others_lost(self, exercise: str) -> dict:
        return {g: r for g, r in self.results.items() if not g.startswith(f"test_{exercise}_") and r[2] != "passed"}

    def score(self, exercise: str) -> tuple[float, float]:
        own = self.own(exercise).values()
        return sum(r[0] for r in own), sum(r[1] for r in own)


def whole_notebook(exercise: str) -> bool:
    """Entries of an exercise with declared rules are graded on their whole notebook (a wrong helper must not cost
    another exercise's points); the others on their own exercise's tests."""
    return exercise in RULES


def tests_for(entry, own_only: bool = False) -> tuple[list, list]:
    source = EXERCISE_TO_SOURCE[entry.exercise]
    _, nb = samples.student_notebook(source.assignment, {entry.exercise: entry.source})
    before, tests = grading.plan(source, nb)
    if own_only or not whole_notebook(entry.exercise):
        tests = [t for t in tests if t[0].startswith(f"test_{entry.exercise}_")]
    return before, tests


def grade(entry, runner, limits=None, own_only: bool = False) -> Graded:
    """The entry graded by `runner` (the in-process runner, or the real sandbox) on its notebook's tests, or on its
    exercise's only (`own_only`)."""
    from autograder.engine.sandbox import Limits

    before, tests = tests_for(entry, own_only)
    results = grading.run_tests(runner, before, tests, 7, limits or Limits())
    return Graded({r.grade_id: (r.points, r.max_points, r.status, r.mistake, r.feedback) for r in results})


def verdict(entry, graded: Graded) -> list[str]:
    """What the header says that the grading does not show ([] when they agree): the tests failed, the score and the
    feedback phrase."""
    lost = graded.lost(entry.exercise)
    problems = []
    feedback = " | ".join(r[4] for r in lost.values())
    if entry.feedback.lower() not in feedback.lower():
        problems.append(f"its feedback does not name the mistake ({entry.feedback!r}): {feedback}")
    if set(lost) != entry.fails:
        problems.append(f"fails {sorted(lost)}, the header says `# fails: {' '.join(sorted(entry.fails))}`")
    got, most = graded.score(entry.exercise)
    if entry.score != (got, most):
        problems.append(f"scores {got:g}/{most:g}, the header says `# score:` {entry.score}")
    return problems


# ------------------------------------------------------------------ feedback names the rule, never the reference
_SPACE = re.compile(r"\s+")
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?![\w(])")
# Lines too short or too common to give an answer away, and single calls of the lesson's ctx API (naming
# `ctx.save_for_backward` or `ctx.mark_dirty` is naming the rule).
_TRIVIAL = re.compile(r"^(@.*|pass|return|return \w+|else:|try:|\w+ = \w+|super\(\)\.__init__\(\)|"
                      r"ctx\.\w+\(\s*[\w\s,*]*\)|ctx\.\w+ = \w+|.{0,9})$")
_EXPRESSION = re.compile(r"^(?:return\s+|[\w\s,().\[\]]+?(?<![=!<>])=(?!=)\s*)(.+)$")


def _shape(text: str) -> str:
    """Code with its spaces removed and its bare names (not attributes, not calls) made `_`: `scatter(-1, i, g)`
    in a message and `scatter(-1, indices, grad_values)` in an answer have one shape."""
    return _NAME.sub("_", _SPACE.sub("", text))


def reference_code() -> tuple[dict, dict]:
    """({line: answer grade id}, {expression's shape: answer grade id}) of the reference answers (between BEGIN and
    END SOLUTION in solutions/), leaving out trivial lines and what the notebook itself shows the learner (its
    statement and lesson cells, where a formula is taught, not given away)."""
    from autograder.engine.notebooks import nbgrader_meta, role

    lines: dict = {}
    shapes: dict = {}
    for source in SOURCES.values():
        shown = " ".join(c.source for c in source.notebook.cells if role(c) not in ("answer", "test"))
        shown_lines, shown_shapes = _SPACE.sub(" ", shown), _shape(shown)
        for cell in source.cells("answer"):
            grade_id, inside = nbgrader_meta(cell)["grade_id"], False
            for line in cell.source.splitlines():
                if "BEGIN SOLUTION" in line or "END SOLUTION" in line:
                    inside = "BEGIN" in line
                    continue
                code = _SPACE.sub(" ", line.split("#")[0]).strip()
                if not inside or not code:
                    continue
                if not _TRIVIAL.match(code) and code not in shown_lines:
                    lines.setdefault(code, grade_id)
                expression = _EXPRESSION.match(code)
                shape = _shape(expression.group(1)) if expression else ""
                if len(shape) >= 12 and "(" in shape and shape not in shown_shapes:
                    shapes.setdefault(shape, grade_id)
    return lines, shapes


def answer_code_in(feedback: str, reference=None) -> list[str]:
    """The reference lines and expressions a feedback message shows ([] for a message that names its rule only)."""
    lines, shapes = reference or reference_code()
    text, shape = _SPACE.sub(" ", feedback), _shape(feedback)
    return [line for line in lines if line in text] + [s for s in shapes if s in shape]


# --------------------------------------------------------------------------------------------- honest answers
HONEST = sorted((paths.ROOT / "tests" / "honest").glob("*/*.py"))


def honest_entry(path):
    """A right answer of tests/honest/<Exercise>/ as a ledger entry: it must fail nothing and score full marks."""
    return samples.entry_of(path, path.read_text())
