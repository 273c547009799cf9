"""Checks for notebook 05 (verifying a backward). The notebook's test cells import this module.

- `numerical_grad(f, x, eps=1e-6)`: the central-difference estimate of the gradient of a scalar-valued `f` at `x`,
  with x's shape and dtype, leaving `x` untouched (`verifying/numgrad.py`).
- `Tanh.apply(x)` returns tanh(x), saves its output, and its backward is itself differentiable: second derivatives
  through `create_graph=True` and `gradgradcheck` are right (`verifying/tanh.py`).
"""

from autograder.checks.verifying.numgrad import (  # noqa: F401
    CENTRAL_CASES, CENTRAL_TABLE, DTYPE_CASES, DTYPE_TABLE, GENERAL_CASES, GENERAL_TABLE, NG, UNTOUCHED_CASES,
    UNTOUCHED_RULES, UNTOUCHED_TABLE, numgrad_central, numgrad_dtype, numgrad_general, numgrad_untouched,
    numgrad_values,
)
from autograder.checks.verifying.tanh import (  # noqa: F401
    CRASH_RULES, EXTREME_CASES, EXTREME_TABLE, FIRST_GRAPH_RULES, GRADGRAD_CASES, GRADGRAD_TABLE, NAME, SAVES_CASES,
    SAVES_TABLE, SECOND_RULES, SHAPES, TANH_GRADCHECK_CASES, TANH_GRADCHECK_TABLE, guarded, tanh_extremes,
    tanh_gradcheck, tanh_gradgradcheck, tanh_saves_one_guarded_tensor, tanh_second_derivative, tanh_values,
)
