"""What the grading engine (autograder/engine/sandbox/) and the course's checks (autograder/checks/) both speak of,
in one leaf module that imports neither:

- `Mistake`, what a check raises: a stable code and the words the learner reads;
- `FakeCtx`, the stand-in ctx checks pass to a direct forward/backward call (the engine sends it by value);
- the probe registry: functions of the checks that run in the learner's process when grading (`probe`),
  and the judge's link to that process while a test runs (`attach_learner`);
- the base seed every check's random inputs are drawn from;
- tensor facts: what the learner's process reported about a tensor it returned (`facts_of`).
"""

from __future__ import annotations

import functools
import time
import weakref
from typing import Callable, Sequence


class Mistake(AssertionError):
    """A check failed because of a recognisable mistake.

    `code` is a short, stable identifier (for example ``"missing-none"``, listed in autograder/engine/mistakes.py)
    used in reports; the message is what the learner reads; `facts` are the structured details.
    """

    def __init__(self, code: str, message: str, **facts):
        super().__init__(message)
        self.code = code
        self.message = message
        self.facts = facts  # what the check saw (position, got, expected, ...): read these, never the message

    def __str__(self) -> str:
        return self.message

    def not_judged(self, what: str, prerequisite: str) -> "Mistake":
        """This mistake, met by a test whose property (`what`) can only be measured once `prerequisite` (another
        rule, tests/zoo/rules.toml `requires`) holds: the same code, its message saying the test was not judged."""
        self.message = f"not judged: {what} can only be measured once {prerequisite} holds. {self.message}"
        self.args = (self.message,)
        return self

    def _render_traceback_(self):
        """How IPython shows a failed visible test: the advice, not a page of traceback."""
        return [f"\x1b[1;31mNot yet:\x1b[0m {self.message}", f"\x1b[2m(mistake id: {self.code})\x1b[0m"]


def fail(code: str, message: str, **facts) -> None:
    raise Mistake(code, message, **facts)


class FakeCtx:
    """A stand-in for autograd's ctx, to call forward/backward directly and see exactly what they return.

    The engine would hide some mistakes (it sums an un-reduced broadcast gradient for you, it ignores a
    gradient for an input that does not need one); calling backward with a crafted ctx does not.
    """

    def __init__(self, needs_input_grad: Sequence[bool] = ()):
        self.needs_input_grad = tuple(needs_input_grad)
        self.saved_tensors: tuple = ()
        self.non_differentiable: tuple = ()
        self.materialize_grads = True
        self._save_calls = 0

    def save_for_backward(self, *tensors):
        self._save_calls += 1
        self.saved_tensors = tuple(tensors)

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tuple(tensors)

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value: bool):
        self.materialize_grads = value


# ------------------------------------------------------------------------ the learner's process (probes)
# When grading, checks run in a judge process and the learner's objects are proxies there (see
# autograder/engine/sandbox/proxy.py): calls and gradients cross by value and are compared there. The few facts only
# the learner's process can observe come from probes: functions of the checks that run *there*, registered by
# name, whose results cross as data. In a notebook there is one process and a probe is a plain call.

PROBES: dict = {}
_learner = None  # the judge's link to the learner's process, while grading


def attach_learner(link) -> None:
    global _learner
    _learner = link


def learner():
    """The judge's link to the learner's process while a test is graded; None in a notebook."""
    return _learner


def probe(fn: Callable, compiles: bool = False) -> Callable:
    """Mark `fn` as a probe: when grading, it runs in the learner's process and only its result comes back.
    `compiles`: it compiles, traces or exports (see `compiling_probe`)."""
    name = f"{fn.__module__}:{fn.__qualname__}"
    PROBES[name] = fn

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if _learner is None:
            return fn(*args, **kwargs)
        return _learner.probe(name, args, kwargs)

    @functools.wraps(fn)
    def run_compiling(*args, **kwargs):
        start = time.perf_counter()
        try:
            if _learner is None:
                result = fn(*args, **kwargs)
                return _timed_as_compiling(result) if callable(result) else result
            result = _learner.probe(name, args, kwargs)
            _learner.count_as_compiling(result)
            return result
        finally:
            COMPILING[0] += time.perf_counter() - start

    return run_compiling if compiles else run


def compiling_probe(fn: Callable) -> Callable:
    """A probe whose work is torch.compile, torch.export or opcheck: its time, and that of every call of what it
    returns (a compiled function compiles at its first call), counts as "compile" in the benchmark's figures."""
    return probe(fn, compiles=True)


# Seconds the current test spent compiling, tracing or exporting (the compiling probes and the calls of what they
# returned), in the judge's process or in a notebook's: a figure for the benchmark, never for a verdict.
COMPILING = [0.0]


def _timed_as_compiling(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def call(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            COMPILING[0] += time.perf_counter() - start

    return call


_handle_ids = None  # set by the engine's proxies (sandbox/proxy.py): a proxy's handle in the learner's process


def set_handle_ids(fn: Callable) -> None:
    global _handle_ids
    _handle_ids = fn


def handle_id(obj) -> int | None:
    """The handle that names `obj` in the learner's process, if `obj` is a proxy of one of its objects."""
    return _handle_ids(obj) if _handle_ids is not None else None


# ------------------------------------------------------------------------------------------- the seed

_base_seed = 0


def set_base_seed(seed: int) -> None:
    """Shift every check's random inputs: each grading run draws new inputs (no answer fits one draw)."""
    global _base_seed
    _base_seed = int(seed)


def base_seed() -> int:
    return _base_seed


# --------------------------------------------------------------------------------------- tensor facts

_FACTS: dict = {}  # id(tensor) -> (weakref to it, facts the learner's process reported about it)


def facts_of(tensor) -> dict | None:
    """What the learner's process said about this tensor (grad_fn's type, ...), or None if it is the judge's."""
    entry = _FACTS.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    return None


def remember(tensor, facts: dict) -> None:
    """Keep `facts` for as long as `tensor` lives."""
    key = id(tensor)
    _FACTS[key] = (weakref.ref(tensor, lambda _, key=key: _FACTS.pop(key, None)), facts)
