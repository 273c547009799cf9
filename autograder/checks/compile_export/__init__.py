"""Checks for notebook 11 (torch.compile, torch.export and custom operators): the module its test cells import
as `check`.

Two custom operators made with `torch.library.custom_op`, each with a NumPy kernel, a fake kernel
(`register_fake`) and an autograd formula (`register_autograd`):

- `numpy_sin` is `course::numpy_sin`, x -> sin(x): its checks are in `compile_export/sin.py`.
- `numpy_topk` is `course::numpy_topk`, (x, k) -> (values, indices) of the k largest entries along the last
  dim: its checks are in `compile_export/topk.py`.
- What both share (the Rule tables, what an operator is, opcheck's verdict) is in `compile_export/ops.py`.

When grading, the learner's names are proxies here (autograder/engine/sandbox/proxy.py). Values, gradients, gradcheck
and the fake kernel's outputs are computed by calling the operator (or its registered fake kernel, an attribute
of the operator) through them, with inputs chosen here, and compared here: those tests read no probe. Only what
the learner's process alone can observe comes back through probes: what kind of object the operator is
(`op_facts`), opcheck's verdict (`opcheck_results`), a compiled function (`compiled`) and an exported program
(`export_facts`), each returning only what it computed. Every comparison and verdict is made here.

Each check's `cases=` default is what its visible test runs; the hidden tests pass the larger tables beside it.
Errors become plain feedback through the Rule tables `OP_RULES`, `OPCHECK_RULES` and `TOPK_RULES`
(autograder/checks/explain.py).
"""

from __future__ import annotations

from autograder.checks.compile_export.ops import (  # noqa: F401
    AUTOGRAD_HINT, FAKE_HINT, OPCHECK_RULES, OP_ERROR, OP_RULES, op_facts, opcheck_results, require_op,
)
from autograder.checks.compile_export.sin import (  # noqa: F401
    OP, QUALNAME, SIN_COMPILE_CASES, SIN_COMPILE_DEFAULT, SIN_EXPORT_CASES, SIN_EXPORT_DEFAULT,
    SIN_GRADCHECK_CASES, SIN_GRADCHECK_DEFAULT, SIN_HINT, SIN_OPCHECK_CASES, SIN_OPCHECK_DEFAULT, SIN_VALUES_CASES,
    SIN_VALUES_DEFAULT, compiled, export_facts, sin_compile, sin_export, sin_gradcheck, sin_opcheck, sin_values,
    use_exercise_fake,
)
from autograder.checks.compile_export.topk import (  # noqa: F401
    ONE_PER_INPUT, TOPK, TOPK_FAKE_CASES, TOPK_FAKE_DEFAULT, TOPK_GRADIENT_CASES, TOPK_GRADIENT_DEFAULT, TOPK_HINT,
    TOPK_OPCHECK_CASES, TOPK_OPCHECK_DEFAULT, TOPK_QUALNAME, TOPK_RULES, TOPK_VALUES_CASES, TOPK_VALUES_DEFAULT,
    topk_fake_kernel, topk_gradient, topk_opcheck, topk_values,
)
