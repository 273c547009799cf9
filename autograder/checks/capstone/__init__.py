"""Checks for the capstone (notebook 14): `LogSumExp.apply(x, dim, keepdim)`.

Contract: log(sum(exp(x), dim)) like torch.logsumexp(x, dim, keepdim), for an int `dim` (negative allowed) and a
bool `keepdim`, in x's dtype; finite and accurate for inputs of magnitude 1e4; on masked rows (-inf entries) the
value of torch.logsumexp, -inf for a fully masked row, and its gradient and tangent wherever a row keeps a finite
entry; backward returns (grad_x, None, None) and is differentiable again; forward mode (a `jvp` returning the
output's tangent) and torch.func's transforms (vmap, vmap(grad), vmap(jvp), jvp, jacfwd, hessian) give what they
give for torch.logsumexp; besides x itself, only reduced-size tensors are kept for backward.

Every check takes `cases=`: its default is what the visible test runs, the hidden tests pass the larger tables of
capstone/cases.py. A case is a tuple whose last item is its seed. Errors become mistakes only through the rule
tables (`RULES`, `FORWARD_RULES`): see autograder/checks/explain.py.

Where the judge can, it verifies the Function's own static methods rather than what a transform reports: the
forward-mode test calls forward, setup_context and jvp through the learner's proxies with a stand-in ctx
(`ThroughMethods`, a Function of the judge's made of them) and runs gradcheck's forward-AD check on that, so no
fact of it comes from the learner's process. torch.func's transforms must run where the Function lives: they run
in the probe `transformed`, which returns only the tensors computed; the comparisons are made here. The trusted
reference is torch.logsumexp (and torch.func's transforms of it, computed here), bound when this module is
imported.

Where each part lives: capstone/cases.py (the case tables), capstone/rules.py (hints, rule tables, references and
the calls of learner code), capstone/values.py (values, stability, masked rows, shapes, the Nones, gradcheck and
gradgradcheck), capstone/forward.py (the Function's own jvp), capstone/transforms.py (torch.func's transforms, the
probe `transformed`) and capstone/memory.py (what is kept for backward, the probe `kept_for_backward`). This module
is the one the notebook imports (`from autograder.checks import capstone as check`): it names the checks and their
case tables.
"""

from __future__ import annotations

from autograder.checks.capstone.cases import (  # noqa: F401
    CASES, FORWARD_CASES, FORWARD_EXAMPLE, GRADCHECK_CASES, GRADCHECK_EXAMPLE, GRADGRAD_CASES, GRADGRAD_EXAMPLE,
    MASKED_CASES, MASKED_EXAMPLE, MEMORY_CASES, MEMORY_EXAMPLE, NONE_CASES, NONE_EXAMPLE, SHAPE_CASES, SHAPE_EXAMPLE,
    STABILITY_CASES, STABILITY_EXAMPLE, TRANSFORM_CASES, TRANSFORM_EXAMPLE, VALUE_CASES, VALUE_EXAMPLE, VMAP_CASES,
    VMAP_EXAMPLE)
from autograder.checks.capstone.forward import ThroughMethods, forward_mode  # noqa: F401
from autograder.checks.capstone.memory import kept_for_backward, saved_memory  # noqa: F401
from autograder.checks.capstone.rules import FORWARD_RULES, JVP_RULES, NAME, RULES  # noqa: F401
from autograder.checks.capstone.transforms import forward_transforms, transformed, vmap  # noqa: F401
from autograder.checks.capstone.values import (  # noqa: F401
    gradcheck, gradgradcheck, masked_rows, none_for_dim_and_keepdim, shapes, stability, values)
