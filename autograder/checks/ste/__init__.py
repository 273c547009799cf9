"""Checks for the straight-through estimators of notebook 06.

`RoundSTE.apply(x)`: forward `torch.round(x)`; backward passes `grad_output` through unchanged.
`SignSTE.apply(x)`:  forward `torch.sign(x)`;  backward `grad_output * (x.abs() <= 1)` (the clipped STE:
                     |x| == 1 exactly counts as inside).

`gradcheck` fails by design on an STE (finite differences see the flat steps of the staircase), so every
gradient check here compares with a hand-computed expectation, always with a random `grad_output`: a
backward that returns ones, or the mask alone, would pass a test that uses an all-ones grad_output.

The checks live in ste/ (`round.py` and `sign.py`, what they share in `shared.py`); the notebook's test cells import
this module (the folder's __init__.py).
"""

from __future__ import annotations

from autograder.checks.ste.shared import (  # noqa: F401
    BACKWARD_CASES, BACKWARD_TABLE, DTYPES, EXACT_CASES, EXACT_TABLE, GRAPH_CASES, GRAPH_TABLE, SHAPES,
)
from autograder.checks.ste.round import (  # noqa: F401
    ROUND, ROUND_DTYPE_CASES, ROUND_DTYPE_TABLE, round_backward, round_dtype, round_forward_exact, round_graph,
    round_values,
)
from autograder.checks.ste.sign import (  # noqa: F401
    BOUNDARY_CASES, BOUNDARY_TABLE, SIGN, SIGN_DTYPE_CASES, SIGN_DTYPE_TABLE, sign_backward, sign_boundary,
    sign_dtype, sign_forward_exact, sign_graph, sign_values,
)
