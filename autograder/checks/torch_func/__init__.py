"""Checks for notebooks 10 (torch.func: vmap, grad, jacrev) and 10b (forward mode: jvp, jacfwd, hessian).

- `Cube.apply(x)` returns x ** 3. Written in the torch.func style: `forward(x)` without ctx, a separate
  `setup_context(ctx, inputs, output)`, `generate_vmap_rule = True`, and a backward made of differentiable
  torch operations, so it works under `torch.func.vmap`, `grad` and `jacrev`, and twice.
- `Softplus.apply(x)` returns log(1 + exp(x)), finite and accurate for |x| up to 1e4 (no overflow, no NaN), in
  the same style plus a `jvp(ctx, x_t)` staticmethod reading what setup_context saved with
  `ctx.save_for_forward`, so it works under `torch.func.jvp`, `jacfwd`, `hessian` and `vmap` too. The trusted
  reference is torch.nn.functional.softplus (its derivative torch.sigmoid), bound when this module is imported.
  How forward computes the value is free (F.softplus itself is fine): the lesson is the methods around it.
- `ScaledProduct.apply(x, y, alpha)` returns alpha * x * y for tensors x, y of one shape and a float alpha, with a
  `jvp(ctx, x_t, y_t, alpha_t)` that adds both tangents' terms (on torch 2.13 forward mode passes zeros for a
  tensor input without a tangent and None for the float) and a backward that returns None for alpha.
- `RunningSum.apply(x)` returns the cumulative sum along the last dimension, computed by NumPy, with a `vmap`
  staticmethod (`generate_vmap_rule` cannot batch a NumPy kernel) that moves the batch dimension where the kernel
  treats it as a batch, wherever vmap put it.

Each check takes `cases=`: its default is what the visible test cell runs, the module's `*_CASES` tables are what
the hidden tests run. A case is a tuple whose first item names what it checks.

When grading, the learner's names are proxies here (autograder/engine/sandbox/proxy.py): calls, gradients, gradcheck and
gradgradcheck go through them, and so do the direct calls of a Function's own static methods (`forward`,
`setup_context`, `backward`, `jvp`, `vmap`) with a stand-in ctx and inputs the judge chose, whose results are
compared here with references computed here. torch.func transforms need the real objects: those run in the
learner's process, in the probes `transformed` and `dual_tangent`, which return only the tensors they computed;
only the tests of Cube's vmap and grad and Softplus's jacfwd and vmap read them. Forward-mode gradcheck
(`check_forward_ad=True`) cannot run over a proxy (its node in the judge has no jvp): the judge checks `jvp`
directly instead, against the reference's Jacobian-vector product and against central differences of `apply`.

Where each part lives:

- torch_func/cube.py, torch_func/running.py (notebook 10); torch_func/softplus.py, torch_func/scaled.py (10b);
- torch_func/methods.py: a Function's own static methods called directly (`require_own_methods`);
- torch_func/probes.py: what runs in the learner's process (`transformed`, `dual_tangent(s)`, `without_storage`);
- torch_func/rules.py: the shared words (rule tables, messages) and the calls that turn errors into mistakes.

This module is the one the notebooks import (`from autograder.checks import torch_func as check`): it names the
checks and their case tables.
"""

from __future__ import annotations

from autograder.checks.torch_func.cube import (  # noqa: F401
    CUBE_GRAD_CASES, CUBE_GRADGRAD_CASES, CUBE_JACREV_CASES, CUBE_VALUES_CASES, CUBE_VMAP_CASES, cube_func_grad,
    cube_gradgradcheck, cube_jacrev, cube_values, cube_vmap)
from autograder.checks.torch_func.methods import ALL_PARTS, require_own_methods  # noqa: F401
from autograder.checks.torch_func.probes import dual_tangent, dual_tangents, transformed, without_storage  # noqa: F401
from autograder.checks.torch_func.running import (  # noqa: F401
    RUNNING_VALUES_CASES, RUNNING_VMAP_CASES, running_values, running_vmap)
from autograder.checks.torch_func.scaled import (  # noqa: F401
    SCALED_JVP_CASES, SCALED_VALUES_CASES, scaled_jvp, scaled_values)
from autograder.checks.torch_func.softplus import (  # noqa: F401
    SOFTPLUS_GRADCHECK_CASES, SOFTPLUS_HESSIAN_CASES, SOFTPLUS_JACFWD_CASES, SOFTPLUS_JVP_CASES, SOFTPLUS_VALUES_CASES,
    SOFTPLUS_VMAP_CASES, softplus_gradcheck, softplus_hessian, softplus_jacfwd, softplus_jvp, softplus_values,
    softplus_vmap)
