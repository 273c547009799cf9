"""Which of a student's copies of one notebook is graded, and why: one rule for every way in (`collect` of a folder
or an LMS download, a Gradescope upload), a line per copy considered.

The rule, in order: the latest submission, where the LMS dates them (a later attempt replaces an earlier one,
even a blank one: it is what the student handed in last); then the copy with the most answer cells filled in
(JupyterLab's "Duplicate" leaves a blank `-Copy1` beside the answered file); then one with answer cells at all;
then the one sharing most of the course notebook's cells; then the one named like the course's; then the first
by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def normalised(text) -> str:
    return "\n".join(line.rstrip() for line in "".join(text).strip().splitlines())


_RELEASED: dict = {}


def released(source) -> dict[str, str]:
    """Each answer cell of `source` as the learner received it: course/'s for a source in solutions/ (whose
    answer cells hold the reference), the source's own for a grading copy (already the released text)."""
    from autograder import paths
    from autograder.engine import notebooks
    from autograder.engine.notebooks import nbgrader_meta, role

    course = paths.COURSE / source.assignment / source.path.name
    cells = source.cells("answer")
    if Path(source.path).resolve().is_relative_to(paths.SOLUTIONS.resolve()) and course.is_file():
        stamp = (str(course), course.stat().st_mtime_ns)
        if stamp not in _RELEASED:
            _RELEASED[stamp] = [c for c in notebooks.read(course, limit=1 << 40).cells if role(c) == "answer"]
        cells = _RELEASED[stamp]
    return {nbgrader_meta(c)["grade_id"]: normalised(c.source) for c in cells}


def answered(nb, source) -> tuple[int, int]:
    """(answer cells of `source` whose submitted text differs from the released one, answer cells)."""
    from autograder.engine import notebooks

    released_text = released(source)
    submitted = notebooks.submitted_answers(nb)
    return sum(1 for g, text in released_text.items() if g in submitted and normalised(submitted[g]) != text), \
        len(released_text)


@dataclass
class Copy:
    """One file considered as a student's copy of `source` (nb None: unreadable, ranked last)."""
    path: Path
    shown: str               # its name as said to the reader
    source: object
    nb: object = None
    when: str = ""           # the LMS's sortable submission time, "" where it gives none

    def __post_init__(self):
        from autograder.engine import notebooks

        if self.nb is None:
            self.filled, self.total, self.has_answers, self.overlap = 0, 0, False, 0
            return
        self.filled, self.total = answered(self.nb, self.source)
        self.has_answers = bool(notebooks.submitted_answers(self.nb))
        course = set(self.source.grade_ids("answer")) | set(self.source.grade_ids("test"))
        self.overlap = len(notebooks.ids_in(self.nb) & course)

    @property
    def rank(self) -> tuple:
        return (self.when, self.filled, self.has_answers, self.overlap, self.path.name == self.source.path.name)

    def describe(self) -> str:
        when = f", submitted {self.when}" if self.when else ""
        if self.nb is None:
            return f"- {self.shown} (the notebook {self.source.name}, unreadable{when})"
        if self.has_answers:
            return (f"- {self.shown} (the notebook {self.source.name}, {self.filled} of {self.total} answer cells "
                    f"filled in{when})")
        return f"- {self.shown} (the notebook {self.source.name}, without answer cells{when})"


REASONS = ("the latest submission", "the copy with the most answer cells filled in", "the copy with answer cells",
           "the copy with the most of the course notebook's cells", "the copy named like the course notebook")


def choose(copies: list[Copy]) -> tuple[Copy, list[str]]:
    """The copy graded among `copies` (in name order), and a line per copy saying whether it was chosen and why."""
    best = max(copies, key=lambda c: c.rank)  # max() keeps the first of equals: the order by name decides ties
    lines = []
    for copy in copies:
        if copy is best:
            lines.append(f"{copy.describe()}: chosen{why_chosen(best, copies)}.")
        elif copy.when < best.when:
            lines.append(f"{copy.describe()}: not chosen (submitted before {best.shown}).")
        else:
            fewer = "fewer answers" if copy.filled < best.filled else "as many answers"
            lines.append(f"{copy.describe()}: not chosen ({fewer} than {best.shown}).")
    return best, lines


def why_chosen(best: Copy, copies: list[Copy]) -> str:
    """Why `best` won: the first part of its rank that beats the next best copy's."""
    others = [c for c in copies if c is not best]
    if not others:
        return ""
    runner = max(others, key=lambda c: c.rank)
    for mine, theirs, reason in zip(best.rank, runner.rank, REASONS):
        if mine != theirs:
            return f" ({reason})"
    return " (of equal copies, the first by name)"
