"""A float64 answer that lost precision to float32 somewhere (`.float()`, a float32 constant or buffer, a tensor made
without a dtype): its error is float32's rounding, not a wrong formula, and its message says so instead of blaming
the formula. Used by `require_close`'s callers that know which part they judge, and by `gradcheck`, whose finite
differences of a float32 forward are float32's rounding divided by eps (so its backward gets blamed otherwise)."""

from __future__ import annotations

import contextlib

import torch

from autograder.engine.shared import Mistake

FLOAT32_HINT = ("compute in the input's dtype: no .float(), and no float32 constant or buffer made without "
                "dtype=x.dtype")


# Inside `precision_elsewhere()`, a float64 result off by float32's rounding passes `require_close`: the test judges
# another rule than the one that owns precision (the values or derivative test), so one float32 costs one rule.
_ELSEWHERE: list = []


def float32_rounded(actual) -> bool:
    """Whether a float64 tensor holds only values that float32 can hold: what a result computed in float32 and cast
    back looks like (a float64 computation leaves almost every value between two float32s)."""
    if not isinstance(actual, torch.Tensor) or actual.dtype != torch.float64:
        return False
    values = actual.detach()
    finite = values[torch.isfinite(values) & (values != 0)]
    return finite.numel() >= 1 and bool((finite.to(torch.float32).to(torch.float64) == finite).all())


def off_by_float32(actual, expected) -> bool:
    """A float64 `actual` that misses `expected` by float32's rounding: it holds only float32 values (computed in
    float32, cast back), or its errors are within a few float32 ulps and of both signs (a float32 factor among
    float64 ones; an eps or a wrong formula errs one way, or further)."""
    if not (isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor)) or actual.dtype != torch.float64 \
            or tuple(actual.shape) != tuple(expected.shape) or not bool(torch.isfinite(actual).all()):
        return False
    error = actual.detach() - expected.detach().to(torch.float64)
    size = float(expected.detach().abs().max()) if expected.numel() else 0.0
    worst = float(error.abs().max()) if error.numel() else 0.0
    if size == 0.0 or worst <= 1e-12 * size:
        return False
    rounded = float32_rounded(actual) and not float32_rounded(expected)
    # float32's rounding errs by up to half an ulp of each value: somewhere near that scale, relative to the value
    # missed (an eps of 1e-10 added to a norm of 1 errs by 5e-11 of it: no float32 there)
    wanted = expected.detach().to(torch.float64)
    missed = wanted != 0
    relative = float((error[missed] / wanted[missed]).abs().max()) if bool(missed.any()) else 0.0
    ulp = torch.finfo(torch.float32).eps
    return rounded or (ulp / 64 <= relative and worst <= 4 * ulp * size and bool((error > 1e-12 * size).any())
                       and bool((error < -1e-12 * size).any()))


def require_float64_kept(actual, expected, what: str, part: str) -> None:
    """`actual` off by float32's rounding (`off_by_float32`) fails, naming `part` (forward, backward), except inside
    `precision_elsewhere()`."""
    if not _ELSEWHERE and off_by_float32(actual, expected):
        worst = float((actual.detach() - expected.detach().to(torch.float64)).abs().max())
        size = float(expected.detach().abs().max())
        raise Mistake("float32-precision",
                      f"{what} is off by float32's rounding for a float64 input (largest error {worst:.2g}, "
                      f"{worst / size:.1g} of its largest value): {part} computes something in float32. "
                      f"{FLOAT32_HINT[0].upper()}{FLOAT32_HINT[1:]}.")


@contextlib.contextmanager
def precision_elsewhere():
    _ELSEWHERE.append(True)
    try:
        yield
    finally:
        _ELSEWHERE.pop()


def tolerated(actual, expected) -> bool:
    return bool(_ELSEWHERE) and off_by_float32(actual, expected)


def forward_in_float32(fn, inputs, reference=None) -> bool:
    """Whether `fn` (the learner's forward, through `apply`) gives a float32 output, or float64 values that float32
    holds (or, with `reference`, off by float32's rounding), for float64 inputs: finite differences of it are then
    float32's rounding divided by eps."""
    if not any(isinstance(t, torch.Tensor) and t.dtype == torch.float64 for t in inputs):
        return False
    plain = tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in inputs)
    try:
        with torch.no_grad():
            out = fn(*plain)
            expected = reference(*plain) if reference is not None else None
    except Exception:  # noqa: BLE001 - a forward that raises is gradcheck's own verdict
        return False
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = expected if isinstance(expected, (tuple, list)) else (expected,) * len(outs)
    return any(isinstance(t, torch.Tensor) and t.is_floating_point()
               and (t.dtype in (torch.float32, torch.float16, torch.bfloat16) or float32_rounded(t)
                    or off_by_float32(t, e)) for t, e in zip(outs, refs))


def blame_float32_forward(mistake: Mistake, code: str, fn, inputs, what: str, reference=None) -> None:
    """gradcheck failed with `mistake`: where the forward gives float32 values, say so instead of blaming backward."""
    if mistake.code == code and forward_in_float32(fn, inputs, reference):
        raise Mistake("float32-precision", f"{what}: the forward gives float32 values for float64 inputs, so "
                                           "gradcheck's finite differences measure float32's rounding, not the "
                                           f"derivative: {FLOAT32_HINT}.")


def backward_in_float32(fn, inputs) -> bool:
    """Whether `fn`'s backward (grad_output of ones, which keeps a rounding visible) gives float32 values for float64
    inputs: finite differences of it, as gradgradcheck takes them, are then float32's rounding divided by eps."""
    leaves = tuple(t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
                   for t in inputs)
    wanted = [t for t in leaves if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype == torch.float64]
    try:
        with torch.enable_grad():
            out = fn(*leaves)
            out = out[0] if isinstance(out, (tuple, list)) else out
            grads = torch.autograd.grad(out, wanted, torch.ones_like(out), allow_unused=True)
    except Exception:  # noqa: BLE001 - a backward that raises is gradgradcheck's own verdict
        return False
    return any(isinstance(g, torch.Tensor) and float32_rounded(g) for g in grads)
