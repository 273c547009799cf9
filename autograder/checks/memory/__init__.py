"""Checks for notebook 08 (trading memory for compute): the module its test cells import as `check`.

- `RecomputeSiLU.apply(x)` returns x * sigmoid(x), saves only x and recomputes the sigmoid in backward: its
  checks are in `memory/recompute_silu.py`.
- `checkpointed_mlp(x, layers)` applies `h = silu(layer(h))` for each nn.Linear in `layers`, each block
  wrapped in `torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`: its checks are in
  `memory/checkpointed_mlp.py`.
- The seeded layers and the saved-bytes measurement both use are in `memory/layers.py`.

Each check takes `cases=`: its default is what the notebook's visible test runs, the hidden block passes the
larger table beside it (`SILU_VALUE_CASES`, ...). Errors become mistakes through the Rule tables (`*_RULES`).
"""

from __future__ import annotations

from autograder.checks.memory.layers import (  # noqa: F401
    JudgeLinear, distinct_bytes, judge_layers, layers_from, make_layers, plain_mlp, record_saved, storage_key,
)
from autograder.checks.memory.recompute_silu import (  # noqa: F401
    EXTREMES, NO_CHANGE_RULES, SHAPES, SILU, SILU_GRADCHECK_CASES, SILU_GRAPH_CASES, SILU_HINT, SILU_INPLACE_CASES,
    SILU_SAVED_CASES, SILU_VALUE_CASES, silu_gradcheck, silu_graph, silu_inplace_detected, silu_saves_the_least,
    silu_values,
)
from autograder.checks.memory.checkpointed_mlp import (  # noqa: F401
    BACKWARD_RULES, CALL_RULES, MLP, MLP_FROZEN_CASES, MLP_MEMORY_CASES, MLP_VALUE_CASES, RECOMPUTE_HINT,
    mlp_frozen_input, mlp_memory, mlp_values, run_checkpointed,
)
