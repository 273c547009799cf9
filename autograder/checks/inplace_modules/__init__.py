"""Checks for notebook 12 (in-place Functions, and Functions inside modules).

- `ScaleInplace.apply(x, alpha)` multiplies x in place by the float alpha (`x.mul_(alpha)`), declares it with
  `ctx.mark_dirty(x)` and returns x itself; backward returns `(grad_output * alpha, None)`.
- `ClampInplace.apply(x, low, high)` clamps x in place to [low, high] (`x.clamp_(low, high)`), marks it dirty,
  returns x and saves it: after the call x holds the *output*, so backward reads its mask from the saved output
  (gradient 1 strictly inside (low, high), 0 where clamped); backward returns `(grad, None, None)`.
- `LinearFunction.apply(x, weight, bias)` is `x @ weight.T + bias` for x (N, in), weight (out, in), bias (out,)
  or None; backward returns a gradient of each input's exact shape, None for a missing bias, and None for
  every input whose `ctx.needs_input_grad` entry is False.
- `Linear(in_features, out_features, bias=True)` is an nn.Module with nn.Parameters `weight` (out, in) and
  `bias` (out,) (no bias parameter when bias=False) whose forward calls `LinearFunction.apply`.

Every check observes behaviour the judge computes: when grading, the learner's names are proxies here
(autograder/engine/sandbox/proxy.py). In-place calls cross like any other: an input the learner's Function changed and
returned with `ctx.mark_dirty` comes back as that very input, its version counter moved and its history ending at
the call's node; an input the judge changes after the call is changed there before backward. So the in-place
checks compare values, gradients, version counters and autograd's own errors, never a node's name.

A module is built through the proxy too (`Linear(3, 2)` is a handle to the learner's object): its parameters are
read as tensors, `get_parameter` says whether each is registered as one, and `load_state_dict` (strict) both
checks the parameter names and puts the judge's weights in. Gradients of the module's parameters and SGD steps
stay in the learner's process, so `linear_forward` and `linear_trains` read them through the probe
`linear_facts`; where the learner's LinearFunction is wrong, that probe runs the module on a reference
LinearFunction instead, so one mistake costs points once (in LinearFunction's tests) and the module's tests judge
the module's own code.

Where each part lives, in inplace_modules/: scale.py and clamp.py (the in-place exercises), shared.py (what both are
checked with), linear_function.py, linear_module.py and linear_probe.py (the probe `linear_facts`). This module (the
folder's __init__.py) is the one the notebook imports (`from autograder.checks import inplace_modules as check`): it
names the checks and their case tables.
"""

from __future__ import annotations

from autograder.checks.inplace_modules.clamp import (  # noqa: F401
    CLAMP_SAVED_CASES, CLAMP_SAVED_TABLE, CLAMP_VALUE_CASES, CLAMP_VALUE_TABLE, CLAMP_VERSION_CASES,
    CLAMP_VERSION_TABLE, clamp_refuses_a_changed_output, clamp_values, clamp_version_counter)
from autograder.checks.inplace_modules.scale import (  # noqa: F401
    SCALE_CHAIN_CASES, SCALE_CHAIN_TABLE, SCALE_VALUE_CASES, SCALE_VALUE_TABLE, SCALE_VERSION_CASES,
    SCALE_VERSION_TABLE, scale_chain, scale_values, scale_version_counter)
from autograder.checks.inplace_modules.linear_function import (  # noqa: F401
    LINEAR_GRADCHECK_CASES, LINEAR_GRADCHECK_TABLE, LINEAR_VALUE_CASES, LINEAR_VALUE_TABLE, NEEDS_CASES, NEEDS_TABLE,
    linear_gradcheck, linear_needs_input_grad, linear_values)
from autograder.checks.inplace_modules.linear_module import (  # noqa: F401
    FORWARD_CASES, FORWARD_TABLE, PARAMETER_CASES, PARAMETER_TABLE, TRAIN_CASES, TRAIN_TABLE, linear_forward,
    linear_parameters, linear_trains)
from autograder.checks.inplace_modules.linear_probe import linear_facts  # noqa: F401
