"""What notebook 15's five exercises share (see `debugging`): the causes a learner names (`CAUSES`, one key per
`CAUSE_<Exercise>`), the `cause` check, which reads the right ones from solutions/debugging_key.json
(`answer_key`, the judge's alone, as notebook 00's decisions are), and how feedback spells a shape.
"""

from __future__ import annotations

import json

from autograder.checks import common as c
from autograder import paths


# key -> what it means. Every exercise's cause is one of them; most are not the cause of any of the four.
CAUSES = {
    "not-summed": "a broadcast input's gradient is returned with the output's shape, never summed back to the input's",
    "sum-before-multiply": "a broadcast input's gradient is summed down to its shape before the product it is the sum "
                           "of has been formed",
    "wrong-derivative": "the derivative formula is wrong wherever it is evaluated",
    "ignores-grad-output": "backward does not multiply by grad_output",
    "float32-check": "nothing is wrong with the Function: the check ran in float32, where finite differences are noise",
    "zero-over-zero": "backward evaluates a quotient that is 0 / 0 at a point where forward was guarded",
    "overflow": "an intermediate of backward overflows to inf for large inputs",
    "missing-none": "backward returns a gradient for an input that cannot have one (a Python number)",
    "saved-without-version": "a tensor backward reads was saved through an alias the version counter does not follow, "
                             "so an in-place change before backward goes unnoticed",
    "missing-mark-dirty": "forward changes an input in place without telling autograd (ctx.mark_dirty)",
    "reference-cycle": "the output refers to itself through its own node (a tensor kept as a ctx attribute), so "
                       "dropping it frees nothing until the garbage collector runs",
    "saves-too-much": "forward saves more for backward than backward needs, so every call keeps extra memory",
}

EXERCISES = ("ScaleShift", "Sinc", "LinearMap", "Gaussian", "DivideBy")

# With the instructor's sources, not in the package (see decisions.KEY_PATH): a protected path while grading.
KEY_PATH = paths.DEBUGGING_KEY

LISTED, RIGHT = "listed", "right"
CAUSE_CASES = (LISTED, RIGHT)


def answer_key() -> dict:
    """exercise -> {"right": key, "look": where to look (without naming the cause)}. Read when a hidden test needs
    it, never on import (the learner's process imports this module but never calls this)."""
    return json.loads(KEY_PATH.read_text(encoding="utf-8"))["causes"]


def _normalise(value):
    return value.strip().strip("'\"").strip().lower() if isinstance(value, str) else value


def cause(exercise: str, chosen, cases=(LISTED,)) -> None:
    """Visible: `chosen` is one of the keys of CAUSES (it says nothing about whether it is the right one). With
    RIGHT among the cases (the hidden test): it is the cause of that exercise's broken Function."""
    name = f"CAUSE_{exercise}"
    if chosen is None or chosen is Ellipsis:
        c.fail("no-cause", f"{name} is not implemented yet (not named): set it to one of the keys of CAUSES, as a "
                           "string.")
    if _normalise(chosen) not in CAUSES:
        c.fail("unknown-cause", f"`{name}` is {chosen!r}, which is not a key of CAUSES. Use one of: "
                                f"{', '.join(map(repr, CAUSES))} (a string, exactly as written).")
    if RIGHT not in cases:
        return
    key = answer_key()[exercise]
    picked = _normalise(chosen)
    if picked != key["right"]:
        c.fail("wrong-cause", f"`{name}` = {picked!r} ({CAUSES[picked]}) is not what breaks the broken {exercise}. "
                              f"{key['look']}")


def fmt(shape) -> str:
    return str(tuple(shape)).replace(",)", ")")


def symptom_remains(exercise: str, symptom: str) -> None:
    """Fail the test: the learner's Function still shows its bug report's symptom. The cause's point and the points of
    the rules the broken Function already keeps stand for the fix, and count only with it."""
    c.fail("symptom-remains",
           f"{exercise} still shows the bug report's symptom: {symptom}. This point counts once the Function is "
           "fixed (a cause, or a rule the broken Function already kept, is worth nothing without the fix).")
