"""Checks for notebook 09 (wrapping external kernels, here NumPy).

- `NumpyCumsum.apply(x, dim)`: cumulative sum along `dim`, forward and backward computed by NumPy, backward
  marked @once_differentiable; output of x's dtype and device; None for dim.
- `SortWithIndices.apply(x)`: (values, indices) of an ascending sort along the last dim; the values'
  gradient is scattered back through the indices; indices are int64 and carry no gradient.
- `ClampWithMask.apply(x, lo, hi)`: (x.clamp(lo, hi), mask), mask a float tensor of x's dtype, 1 where
  lo <= x <= hi, marked non-differentiable; the gradient reaches x only where the mask is 1.

The checks live in one module per exercise in external/ (`cumsum.py`, `sort.py`, `clamp.py`), what they share in
`shared.py`; the notebook's test cells import this module (the folder's __init__.py).
"""

from __future__ import annotations

from autograder.checks.external.shared import EXTERNAL_RULES, NUMPY_ERROR, ONCE  # noqa: F401
from autograder.checks.external.cumsum import (  # noqa: F401
    CUMSUM, CUMSUM_CASES, CUMSUM_HINT, CUMSUM_TABLE, DIMS_CASES, DIMS_TABLE, FIRST_ORDER_RULES, ONCE_CASES,
    ONCE_TABLE, SECOND_ORDER_RULES, cumsum_dims_and_dtypes, cumsum_gradcheck, cumsum_once_differentiable,
    cumsum_values, once_wrapper_facts,
)
from autograder.checks.external.sort import (  # noqa: F401
    SORT, SORT_GRADCHECK_CASES, SORT_GRADCHECK_TABLE, SORT_HINT, SORT_INDEX_CASES, SORT_INDEX_TABLE,
    sort_gradcheck, sort_indices, sort_values,
)
from autograder.checks.external.clamp import (  # noqa: F401
    CLAMP, CLAMP_CASES, CLAMP_HINT, CLAMP_TABLE, MASK_CASES, MASK_TABLE, clamp_gradcheck, clamp_mask, clamp_values,
)
