"""Checks for notebook 15 (debugging a broken Function): five Functions that are wrong the way real ones are, each
to be fixed and its cause named.

Each exercise is graded twice over, on separate points: the cause the learner names (`CAUSE_<Exercise>`, one key of
`CAUSES`) and the fixed Function, whose tests each check one rule against a reference computed here:

- `ScaleShift.apply(x, w, b)` = x * w + b for broadcastable x, w, b (the broken one sums w's gradient before the
  product it belongs to is formed, which is only wrong when w broadcasts);
- `Sinc.apply(x)` = sin(x) / x, 1 at x = 0, with gradient (x cos x - sin x) / x**2 and exactly 0 at x = 0, accurate
  to 1e-6 relative down to |x| = 1e-8 where the formula cancels (the broken one returns 0 / 0 = NaN at 0, and
  rounding noise next to it);
- `LinearMap.apply(x, w)` = x @ w.T, whose backward raises autograd's in-place error when x or w is changed in place
  between forward and backward, without copies (the broken one saves `.data`, which the version counter does not
  follow, and is silently wrong; saved clones answer with the old values and lose the rule);
- `Gaussian.apply(x)` = exp(-x**2), whose output is freed as soon as its caller drops it, guarded by the version
  counter against an in-place change after forward, and never copied (the broken one keeps the output as a ctx
  attribute: a reference cycle only the garbage collector breaks).
- `DivideBy.apply(x, t)` = x / t, for t a Python number or a 0-d tensor that may be learned (the broken one returns
  a gradient for t even when t is a number, where it must return None).

No point without the work it stands for: the hidden cause test and the tests of rules the broken Function already
keeps (same shapes, values, a tensor t) first check that the learner's Function no longer shows its bug report's
symptom (`SYMPTOM_GONE`), so the broken Functions handed back with guessed causes score nothing.

Each check takes `cases=`: its default is the visible test's small case, the hidden tests pass the module's tables.
The right causes are not here: they live in solutions/debugging_key.json (`answer_key`), which only the judge
reads, as notebook 00's decisions do. Everything but the memory test is computed in the judge; whether the output is
freed is a fact only the learner's process can see (`dropped_output`, a probe).

The checks live in one module per exercise in debugging/ (`scaleshift.py`, `sinc.py`, `linearmap.py`, `gaussian.py`,
`divideby.py`), the causes and the `cause` check in `shared.py`; the notebook's test cells import this module (the
folder's __init__.py).
"""

from __future__ import annotations

from autograder.checks import common as c
from autograder.checks.debugging import shared as debugging_shared
from autograder.checks.debugging.shared import (  # noqa: F401
    CAUSES, CAUSE_CASES, EXERCISES, KEY_PATH, LISTED, RIGHT, answer_key,
)
from autograder.checks.debugging.scaleshift import (  # noqa: F401
    BROADCAST_CASES, BROADCAST_SHAPES, SAME_CASES, SAME_SHAPES, SCALE, SCALE_HINT, SCALE_INPUTS, scale_broadcast,
    scale_same_shapes, scale_symptom_gone,
)
from autograder.checks.debugging.sinc import (  # noqa: F401
    AWAY_CASES, SINC, SINC_HINT, ZERO_CASES, ZERO_HINT, sinc_away, sinc_symptom_gone, sinc_zero,
)
from autograder.checks.debugging.linearmap import (  # noqa: F401
    INPLACE_CASES, LINEAR, LINEAR_HINT, LINEAR_INPUTS, LINEAR_VALUES_CASES, UNPROVOKED_RULES, linear_inplace,
    linear_symptom_gone, linear_values,
)
from autograder.checks.debugging.gaussian import (  # noqa: F401
    FREED_CASES, GAUSSIAN, GAUSSIAN_HINT, GAUSSIAN_VALUES_CASES, dropped_output, gaussian_freed, gaussian_symptom_gone,
    gaussian_values, input_changed_in_place, output_changed_in_place,
)
from autograder.checks.debugging.divideby import (  # noqa: F401
    DIVIDE, DIVIDE_HINT, DIVIDE_INPUTS, NUMBER_CASES, TENSOR_CASES, divide_number, divide_symptom_gone, divide_tensor,
)

# exercise -> the check that its bug report's symptom is gone (the evidence a cause's point needs)
SYMPTOM_GONE = {"ScaleShift": scale_symptom_gone, "Sinc": sinc_symptom_gone, "LinearMap": linear_symptom_gone,
                "Gaussian": gaussian_symptom_gone, "DivideBy": divide_symptom_gone}


def cause(exercise: str, chosen, cases=(LISTED,), fixed=None) -> None:
    """Visible: `chosen` is one of the keys of CAUSES. With RIGHT among the cases (the hidden test): first the
    evidence, `fixed` (the learner's Function) no longer shows its report's symptom, whatever the cause named (so
    a wrong fix says nothing about the cause); then the cause is that exercise's."""
    debugging_shared.cause(exercise, chosen)
    if RIGHT in cases:
        c.require_function(fixed, exercise)
        SYMPTOM_GONE[exercise](fixed)
    debugging_shared.cause(exercise, chosen, cases)
