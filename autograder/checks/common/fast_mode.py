"""torch's fast-mode gradcheck, when it fails, recomputes the slow mode's whole Jacobians only to write its own error
message (torch.autograd.gradcheck._run_slow_mode_and_get_error). The checks never show that message: a failing fast
mode is followed by the slow mode (common._fast_then_slow), whose message is the one explained. So while the fast mode
runs, that recomputation is left out: the same verdict, without evaluating the learner's Function twice over every
element of every input (through the sandbox, a round trip each)."""

from __future__ import annotations

import contextlib
import sys

import torch.autograd.gradcheck  # noqa: F401 (the module, bound below before any answer runs)

_MODULE = sys.modules["torch.autograd.gradcheck"]
_EXPLAIN = getattr(_MODULE, "_run_slow_mode_and_get_error", None)  # a private function: absent, nothing is left out


def _unexplained(*args, **kwargs) -> str:
    return ""


@contextlib.contextmanager
def failure_unexplained():
    """Within: a failing fast mode raises without recomputing the slow mode's Jacobians for its message."""
    if _EXPLAIN is None:
        yield
        return
    _MODULE._run_slow_mode_and_get_error = _unexplained
    try:
        yield
    finally:
        _MODULE._run_slow_mode_and_get_error = _EXPLAIN
