"""Checks for notebook 03 (shapes): `unbroadcast`, `BroadcastMul` and `SumDim`.

- `unbroadcast(grad, shape)` sums `grad` down to `shape` under broadcasting rules.
- `BroadcastMul.apply(a, b)` is `a * b` with broadcasting; each gradient has exactly its input's shape.
- `SumDim.apply(x, dim, keepdim)` is `x.sum(dim, keepdim=keepdim)`; the gradient of x has x's shape.

The autograd engine sums a gradient that has the broadcast shape down to the input's shape by itself,
so a missing un-broadcast passes every check that goes through the engine (and gradcheck). The `shapes`
checks therefore call forward and backward directly, with a `FakeCtx`, and look at what backward returns; and,
since a stand-in ctx can be recognised, they also call backward with the node autograd made for `.apply` as its
ctx (`behaviour.backward_by_its_node`, before the engine's repair), and need both to pass.

The checks live in one module per exercise: `shapes/unbroadcast.py`, `shapes/broadcastmul.py` and `shapes/sumdim.py`
(the direct calls they share in `shapes/direct.py`). The notebook's test cells import this module.
"""

from __future__ import annotations

from autograder.checks.shapes.unbroadcast import (  # noqa: F401
    Drawn, EDGE_PAIRS, LEADING_CASES, LEADING_PAIRS, MANY_CASES, SIZE1_CASES, SIZE1_PAIRS, UNBROADCAST_RULES,
    VALUES_CASES, random_pairs, unbroadcast_many, unbroadcast_size1, unbroadcast_values,
)
from autograder.checks.shapes.broadcastmul import (  # noqa: F401
    INPUTS_MUL, MUL_ALL, MUL_GRADCHECK_CASES, MUL_PAIRS, broadcastmul_gradcheck, broadcastmul_shapes,
    broadcastmul_values,
)
from autograder.checks.shapes.sumdim import (  # noqa: F401
    INPUTS_SUM, SUM_CASES, SUM_GRADCHECK_CASES, SUM_LEADING_CASES, SUM_NONE_CASES, SUM_RULES, sumdim_gradcheck,
    sumdim_none, sumdim_shape, sumdim_values,
)
