"""What a test may leave behind in the notebook's judge, and putting it back: every test starts from the same
state without a process of its own.

Only the course's code runs in the judge (its setup cells, the test cells, the checks), so a test changes the
judge's state only where that code does: the random generators it draws from, PyTorch's global switches (grad
mode, default dtype, anomaly mode, ...), the warning filters. `Baseline` records them once the setup cells have
run; `restore` puts them back after each test and each start of the sandbox, modes and hooks left on PyTorch's
stacks included, and names anything it could not: the judge then runs no further test (judge.py: they end as the
grader's own error, never as the learner's)."""

from __future__ import annotations

import gc
import os
import random
import sys
import warnings

import numpy as np
import torch
import torch.autograd.forward_ad as forward_ad
from torch.utils._python_dispatch import _pop_mode as _pop_dispatch_mode

from autograder.engine import shared

_PRINT_OPTS = torch._tensor_str.PRINT_OPTS


def _switches() -> dict:
    """PyTorch's and NumPy's global switches a check could flip, as values `_set_switches` takes back."""
    return {"grad": torch.is_grad_enabled(), "fwd_grad": torch._C._is_fwd_grad_enabled(),
            "dtype": torch.get_default_dtype(),
            "anomaly": (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
            "deterministic": (torch.are_deterministic_algorithms_enabled(),
                              torch.is_deterministic_algorithms_warn_only_enabled()),
            "threads": torch.get_num_threads(), "print": dict(vars(_PRINT_OPTS)), "numpy_errors": np.geterr(),
            "recursion": sys.getrecursionlimit(), "cwd": os.getcwd()}


def _set_switches(switches: dict) -> None:
    torch.set_grad_enabled(switches["grad"])
    torch._C._set_fwd_grad_enabled(switches["fwd_grad"])
    torch.set_default_dtype(switches["dtype"])
    torch.set_anomaly_enabled(*switches["anomaly"])
    enabled, warn_only = switches["deterministic"]
    torch.use_deterministic_algorithms(enabled, warn_only=warn_only)
    torch.set_num_threads(switches["threads"])
    vars(_PRINT_OPTS).update(switches["print"])
    np.seterr(**switches["numpy_errors"])
    sys.setrecursionlimit(switches["recursion"])
    os.chdir(switches["cwd"])


def _stacks() -> dict:
    """What a `with` block's exit takes back: modes and hooks on PyTorch's stacks, a forward-AD level, inference
    mode. A test that raised leaves none of them (its `with` blocks exit as it unwinds)."""
    return {"torch function modes": torch._C._len_torch_function_stack(),
            "dispatch modes": torch._C._len_torch_dispatch_stack(),
            "saved-tensor hooks": torch._C._autograd._top_saved_tensors_default_hooks(True) is not None,
            "forward-AD level": forward_ad._current_level, "inference mode": torch.is_inference_mode_enabled()}


def _unwind(recorded: dict) -> None:
    """Take off the stacks what was left above what `recorded` holds (as the `with` blocks' exits would)."""
    while torch._C._len_torch_function_stack() > recorded["torch function modes"]:
        torch._C._pop_torch_function_stack()
    while torch._C._len_torch_dispatch_stack() > recorded["dispatch modes"]:
        _pop_dispatch_mode()
    if not recorded["saved-tensor hooks"]:
        while torch._C._autograd._top_saved_tensors_default_hooks(True) is not None:
            torch._C._autograd._pop_saved_tensors_default_hooks()
    if forward_ad._current_level != recorded["forward-AD level"] and recorded["forward-AD level"] == -1:
        torch._C._exit_dual_level(level=forward_ad._current_level)
        forward_ad._current_level = -1
    if torch.is_inference_mode_enabled() and not recorded["inference mode"]:
        gc.collect()  # (its guard ends with the object that holds it)


class Baseline:
    """The judge's state once the notebook's setup cells ran: what every test starts from."""

    def __init__(self):
        self.switches = _switches()
        self.stacks = _stacks()
        self.warnings = list(warnings.filters)
        self.generators = (torch.get_rng_state(), random.getstate(), np.random.get_state())
        self.base_seed = shared.base_seed()

    def restore(self) -> list[str]:
        """Put the state back; the names of what could not be (empty: the next test may run here)."""
        shared.attach_learner(None)
        shared.COMPILING[0] = 0.0
        shared.set_base_seed(self.base_seed)
        try:
            if _stacks() != self.stacks:
                _unwind(self.stacks)
        except Exception as error:  # noqa: BLE001 - named below, with what it left
            return [f"unwinding: {type(error).__name__}"] + [name for name, value in _stacks().items()
                                                              if value != self.stacks[name]]
        torch.set_rng_state(self.generators[0])
        random.setstate(self.generators[1])
        np.random.set_state(self.generators[2])
        if warnings.filters != self.warnings:
            warnings.filters[:] = self.warnings
            warnings._filters_mutated()
        if _switches() != self.switches:
            _set_switches(self.switches)
        stacks = _stacks()
        return [name for name, value in stacks.items() if value != self.stacks[name]]
