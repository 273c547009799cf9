"""Checks for the decision exercise of notebook 00: `DECISIONS` maps each scenario to the right tool.

The scenarios and the labels live here so that the notebook's quiz, its plain-text version and the grader
all read the same text; the right labels and their explanations live in decisions_key.json (answer_key),
which only the judge reads (with the instructor's sources).
"""

from __future__ import annotations

import json

from autograder import paths
from autograder.checks import common as c

NAME = "DECISIONS"

# label -> what choosing it means
LABELS = {
    "none": "no custom Function: autograd (or a built-in op) already gives the right gradient",
    "external": "wrap an external kernel that autograd cannot see, and supply its derivative",
    "surrogate": "the forward is non-differentiable: supply a useful surrogate gradient",
    "stable": "the composed backward is unstable or slow: supply a hand-derived backward",
    "checkpoint": "memory: use torch.utils.checkpoint.checkpoint(..., use_reentrant=False), no Function",
    "memory": "memory: write a Function that recomputes instead of saving (when checkpoint cannot do it)",
}

FUNCTION_LABELS = ("external", "surrogate", "stable", "memory")

# key -> the scenario. Which label is right, and why, is not here: see answer_key().
SCENARIOS = {
    "masked_loss": (
        "Your sequence loss averages per-token errors over the real (non-padding) tokens only: it picks them "
        "with a boolean mask, multiplies by a per-sequence weight that broadcasts over the tokens, and an "
        "`if` returns zero when a batch holds no real token."
    ),
    "quantized_weights": (
        "You train a network whose weights are rounded to a few levels in the forward pass (`torch.round(w * "
        "7.5) / 7.5`). Training runs without any error, but the weights never change."
    ),
    "transformer_memory": (
        "A 48-block transformer runs out of GPU memory at the batch size you need. You can afford to run each "
        "block's forward a second time during the backward pass."
    ),
    "c_simulator": (
        "Your loss runs a fluid simulator from a compiled C library, called through ctypes on the tensor's "
        "NumPy data. The library also provides a routine for the adjoint (the vector-Jacobian product)."
    ),
    "logsumexp_scores": (
        "Your loss needs log(sum(exp(s))) over scores that reach 1000. Written as "
        "`torch.log(torch.exp(s).sum())` it returns inf and the gradients are nan."
    ),
    "rnn_early_exit": (
        "Your recurrent cell is a Python `for` loop over time steps written with torch ops; it breaks out "
        "early when the change of the hidden state falls below a tolerance (an `if` on a tensor value)."
    ),
    "implicit_solver": (
        "Your layer finds the fixed point z = f(z, x) with 200 iterations of a solver written in torch. "
        "Backpropagating through all 200 iterations is slow and memory-hungry, while the implicit function "
        "theorem gives the gradient at the fixed point with one linear solve."
    ),
    "reversible_block": (
        "Your network is made of reversible blocks: each block's inputs can be rebuilt exactly from its "
        "outputs. You want to store neither the activations nor the blocks' inputs during training."
    ),
    "numpy_augmentation": (
        "Before images enter the model, you augment them with a NumPy routine (random crops and colour "
        "jitter). Nothing before the images has parameters."
    ),
}

GROUPS = {
    1: ("masked_loss", "quantized_weights", "transformer_memory"),
    2: ("c_simulator", "logsumexp_scores", "rnn_early_exit"),
    3: ("implicit_solver", "reversible_block", "numpy_augmentation"),
}

# With the instructor's sources, not in the package: students' installs and nbgrader's releases leave it behind.
KEY_PATH = paths.DECISIONS_KEY


def answer_key() -> dict:
    """key -> (right label, why), key -> what to reconsider (`reread`: a question, never the label), and (right,
    chosen) -> an extra sentence aimed at that confusion.

    Read from a data file when a hidden test needs it, never on import: the learner's process imports this
    module (and is forked from processes that did) but never calls this, and while grading the file is a
    protected path (grading.protected_paths) it cannot open. So no answer key is in its memory or reach."""
    data = json.loads(KEY_PATH.read_text(encoding="utf-8"))
    scenarios = {k: (v["right"], v["why"]) for k, v in data["scenarios"].items()}
    return {"scenarios": scenarios, "reread": {k: v["reread"] for k, v in data["scenarios"].items()},
            "confusions": {(r, c): t for r, c, t in data["confusions"]}}


def _normalise(value):
    if isinstance(value, str):
        return value.strip().strip("'\"").strip().lower()
    return value


def feedback(right: str, why: str, choice, extra: str = "") -> str:
    """One line for `choice` where `right` is the label to pick and `why` the reason (graded and practice
    scenarios alike); `extra` is added to a wrong label's line."""
    chosen = _normalise(choice)
    if chosen == right:
        return f"Right: {right}. {why}"
    if chosen not in LABELS:
        return f"'{choice}' is not one of the labels ({', '.join(LABELS)})."
    return f"Not {chosen}: the better choice is {right}. {why} {extra}".strip()


def explain(key: str, choice) -> str:
    """One line of feedback for `choice` on scenario `key` (used by the notebook's quiz and the grader)."""
    key_ = answer_key()
    right, why = key_["scenarios"][key]
    chosen = _normalise(choice)
    extra = key_["confusions"].get((right, chosen), "")
    if right == "none" and chosen in FUNCTION_LABELS and not extra:
        extra = "Autograd already handles this; a Function would only add a backward you must keep correct."
    return feedback(right, why, choice, extra)


# The graded feedback names the scenario and the question to reconsider, never the right label or its reason (the
# practice quiz's `explain` gives both): a second attempt then rests on the reasoning, not on a copied label.
REREAD = ("Reread the notebook's questions in their order: does autograd record every operation? Is the gradient it "
          "gives useful? Is the composed backward stable and fast enough? Does memory force a trade, and does a "
          "built-in tool make it for you?")


def _mistake_code(right: str, chosen: str) -> str:
    if right == "none" and chosen in FUNCTION_LABELS:
        return "function-not-needed"
    if right == "checkpoint" and chosen == "memory":
        return "checkpoint-first"
    if right in FUNCTION_LABELS and chosen == "none":
        return "function-needed"
    return "wrong-decision"


def _require_dict(decisions) -> None:
    if decisions is None:
        c.fail("not-defined", f"`{NAME}` is not defined: run (or write) its answer cell.")
    if not isinstance(decisions, dict):
        c.fail("not-a-dict", f"`{NAME}` must be a dict mapping each scenario key to a label, "
                             f"got {type(decisions).__name__}.")


def _require_answers(decisions, keys) -> None:
    missing = [k for k in keys if k not in decisions]
    if missing:
        extra = [k for k in decisions if k not in SCENARIOS]
        misspelt = f" ({', '.join(map(repr, extra))} is not a scenario key: a misspelling?)" if extra else ""
        c.fail("missing-key", f"`{NAME}` is missing the scenario key(s) {', '.join(map(repr, missing))}{misspelt}: "
                              "keep every key of the template and give each one a label.")
    unanswered = [k for k in keys if decisions[k] is None]
    if unanswered:
        c.fail("not-answered", f"scenario(s) {', '.join(map(repr, unanswered))} not answered yet: replace None "
                               f"with one of the labels {', '.join(map(repr, LABELS))}.")
    unknown = [(k, decisions[k]) for k in keys if _normalise(decisions[k]) not in LABELS]
    if unknown:
        shown = ", ".join(f"{k!r}: {v!r}" for k, v in unknown)
        c.fail("unknown-label", f"{shown} is not a label. Use one of {', '.join(map(repr, LABELS))} "
                                "(a string, exactly as written).")


def well_formed(decisions, group: int | None = None) -> None:
    """Visible: every scenario (of group `group`, if given) has one of the labels (says nothing about whether
    the labels are right: the verdict is the self-check's). Each graded test asks about its own group only, so a
    scenario left out of one group costs that group's point alone."""
    _require_dict(decisions)
    c.require_self_contained(decisions, NAME)
    if group is not None:
        _require_answers(decisions, GROUPS[group])
        return
    _require_answers(decisions, list(SCENARIOS))
    extra = [k for k in decisions if k not in SCENARIOS]
    if extra:
        c.fail("unknown-key", f"{', '.join(map(repr, extra))} is not a scenario key; the keys are "
                              f"{', '.join(map(repr, SCENARIOS))}.")


def group(decisions, number: int) -> None:
    """Hidden: every scenario of group `number` has the right label; feedback names each wrong one and what to
    reconsider (never the right label, so that no second attempt can copy it)."""
    _require_dict(decisions)
    keys = GROUPS[number]
    _require_answers(decisions, keys)
    wrong = []
    scenarios = answer_key()["scenarios"]
    for key in keys:
        right = scenarios[key][0]
        chosen = _normalise(decisions[key])
        if chosen != right:
            wrong.append((key, right, chosen))
    if wrong:
        code = _mistake_code(wrong[0][1], wrong[0][2])
        reread = answer_key()["reread"]
        lines = [f"'{key}': '{chosen}' is not the best fit. Consider {reread[key]}" for key, _, chosen in wrong]
        verb = "needs" if len(wrong) == 1 else "need"
        c.fail(code, f"{len(wrong)} of the {len(keys)} scenarios {', '.join(keys)} {verb} another look.\n"
                     + "\n".join(lines) + "\n" + REREAD)
