"""What every fix of notebook 15 must keep besides its report's rule (see `debugging`): the broken Functions keep
what backward reads where autograd's version counter guards it (ctx.save_for_backward), and leave grad_output alone,
so a fix must too. Both are judged by behaviour (common/kept_guarded.py, common/shared_grad_output.py) and charged to
the test of the rule each broken Function already keeps (ScaleShift's same_shapes, Sinc's away, LinearMap's and
Gaussian's values, DivideBy's tensor), whose point stands for the fix: one mistake, that test's point, never the
report's rule or the cause. (LinearMap's and Gaussian's saving is their report's own rule, judged there.)"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.common.shared_grad_output import require_grad_output_kept


OUTPUT = "output"


def require_inputs_kept(Fn, name: str, values: Sequence, kept: dict, names: Sequence[str] = ()) -> None:
    """`Fn.apply(*values)`, then each input named in `kept` ({name shown: its position, or OUTPUT for the output})
    changed in place after forward: backward raises autograd's in-place error or gives the gradient of the call left
    alone."""
    for label, position in kept.items():
        change = (kept_guarded.change_output(0) if position == OUTPUT else kept_guarded.change_inputs(position))
        with c.explained(f"{name}.apply", c.engine_rules(names)):
            kept_guarded.require_kept_guarded(Fn.apply, values, what=f"{name}.backward", kept=label, change=change)


def require_grad_output_alone(Fn, name: str, make_inputs: Callable[[], list], names: Sequence[str] = ()) -> None:
    """Fresh calls `Fn.apply(*inputs)` for each inputs of `make_inputs()`, differentiated through .sum() (one number
    broadcast: a write into it is refused or changes the gradient) and with a grad_output of their own: the same
    gradients, or backward wrote into grad_output."""
    def calls():
        made = []
        for inputs in make_inputs():
            wrt = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
            made.append((Fn.apply(*inputs), wrt))
        return made
    require_grad_output_kept(calls, f"the gradient of {name}.apply(...).sum()", name, names)
