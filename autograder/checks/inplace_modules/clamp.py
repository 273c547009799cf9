"""Checks of ClampInplace (notebook 12): `ClampInplace.apply(x, low, high)` clamps x in place, returns x marked
dirty and saves it, so backward reads its mask from the saved output (the contract: inplace_modules/__init__.py)."""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks import raw_errors
from autograder.checks.explain import Rule, explained
from autograder.checks.inplace_modules.shared import (INPLACE_RULES, dtype_name, grad_through, require_in_place,
                                              require_returned, saved_then_changed)


CLAMP = "ClampInplace"
CLAMP_HINT = ("the gradient is grad_output where low < x < high and 0 where x was clamped; after x.clamp_ the "
              "input's old values are gone, so read the mask from the saved output.")

CLAMP_RULES = INPLACE_RULES + (
    Rule("grad-for-bound", mistake="missing-none", when=lambda facts: facts.get("position") in (2, 3),
         types=(RuntimeError,),
         message="{what}: backward returned a gradient for input {position}, a bound (low or high), which is a "
                 "Python float: return None for each bound, `return grad, None, None`."),
) + c.ENGINE_RULES


def _clamp_input(shape, low, high, seed, dtype):
    """Values spread over [2 low - high, 2 high - low], none within 1e-3 of a bound (where the mask is a choice)."""
    values = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype) * (high - low) + (low + high) / 2
    near = ((values - low).abs() < 1e-3) | ((values - high).abs() < 1e-3)
    return torch.where(near, values + 2e-3, values)


def _clamp(ClampInplace, x, low, high, what):
    """ClampInplace.apply(x, low, high): what it returns must hold x clamped (whether that is x itself is
    clamp_version_counter's rule)."""
    before = x.detach().clone()
    with explained(what, CLAMP_RULES):
        y = ClampInplace.apply(x, low, high)
    require_returned(y, before.clamp(low, high), what, "x clamped to [low, high]")
    return y


def _clamp_in_place(ClampInplace, x, low, high, what):
    """ClampInplace.apply(x, low, high) must keep the in-place contract: x itself changed, marked dirty and
    returned, its version counter moved (the clamped values and the gradient are clamp_values' rule)."""
    version, before = x._version, x.detach().clone()
    with explained(what, CLAMP_RULES):
        y = ClampInplace.apply(x, low, high)
    require_in_place(y, x, before, version, what, "an in-place clamp")
    return y


def _require_clamp_grad(grad, start, weight, low, high, what) -> None:
    inside = ((start > low) & (start < high)).to(weight.dtype)
    expected = weight * inside
    if grad is None:
        c.fail("no-gradient", f"{what}: the input got no gradient: backward must return grad_output times the mask.")
    if isinstance(grad, torch.Tensor) and grad.shape == weight.shape and not bool(torch.allclose(grad, expected)):
        if bool(torch.allclose(grad, weight)):
            c.fail("clamp-mask-all-ones",
                   f"{what}: backward let the gradient through everywhere, clamped elements too. After x.clamp_ the "
                   "saved x holds the output, and every output value lies within [low, high]: a mask written "
                   "with >= and <= is then all ones. Clamped elements are exactly those where the output equals a "
                   "bound: use low < out < high.")
        if bool(torch.allclose(grad, inside)):
            c.fail("ignores-grad-output", f"{what}: backward returned the mask itself: multiply it by grad_output.")
    c.require_close(grad, expected, f"the gradient through {what}", "wrong-derivative", CLAMP_HINT,
                    rtol=1e-10, atol=1e-12)


# (shape, low, high, seed, dtype)
CLAMP_VALUE_CASES = [((6,), -0.5, 0.5, 200, torch.float64)]
CLAMP_VALUE_TABLE = [((), -1.0, 1.0, 210, torch.float64), ((3, 4), 0.0, 2.0, 211, torch.float64),
                     ((2, 3, 2), -2.0, -0.5, 212, torch.float64), ((5, 3), -0.25, 0.75, 213, torch.float32),
                     "gradcheck"]


def clamp_values(ClampInplace, cases=CLAMP_VALUE_CASES) -> None:
    """x computed from a leaf (a plain copy, and two operations deeper in a graph) is clamped: what the call
    returns holds x.clamp(low, high), and the gradient of a loss computed from it afterwards is grad_output where
    low < x < high, 0 elsewhere (and None for each bound). Whether x itself is changed, marked dirty and
    returned is clamp_version_counter's rule. Visible: one (6,) float64 case; CLAMP_VALUE_TABLE: more shapes,
    bounds and float32."""
    c.require_function(ClampInplace, CLAMP)
    # through .sum(), as losses are made: grad_output one number broadcast, which backward must not write into
    require_grad_output_kept(lambda: [(ClampInplace.apply(t * 1.0, -0.5, 0.5), [t]) for t in (
        c.randn(6, seed=240), c.randn(6, seed=241))], f"the gradient of {CLAMP}.apply(x * 1.0, -0.5, 0.5).sum()", CLAMP, ("x", "low", "high"))
    for case in cases:
        if case == "gradcheck":  # float64 gradcheck of x -> ClampInplace.apply(x.clone(), -0.5, 0.5)
            leaf = _clamp_input((6,), -0.5, 0.5, 231, torch.float64).requires_grad_(True)
            what = f"{CLAMP} under gradcheck"
            with explained(what, CLAMP_RULES):
                c.gradcheck(lambda t: ClampInplace.apply(t.clone(), -0.5, 0.5), (leaf,), what, hint=CLAMP_HINT,
                            reference=lambda t: t.clamp(-0.5, 0.5))
            continue
        shape, low, high, seed, dtype = case
        start = _clamp_input(shape, low, high, seed, dtype)
        for how, make_x in (("x = leaf * 1.0", lambda leaf: leaf * 1.0),
                            ("x = (leaf - 1) + 1", lambda leaf: (leaf - 1.0) + 1.0)):
            leaf = start.clone().requires_grad_(True)
            x = make_x(leaf)
            what = f"{CLAMP}.apply(x, {low}, {high}) for {how} of shape {shape} ({dtype_name(dtype)})"
            y = _clamp(ClampInplace, x, low, high, what)
            weight = c.randn(*shape, seed=seed + 100, requires_grad=False, dtype=dtype)
            grad = grad_through(leaf, y, weight, f"{CLAMP}.backward", CLAMP_RULES)
            _require_clamp_grad(grad, start, weight, low, high, what)


CLAMP_SAVED_CASES = ("changed-after",)
CLAMP_SAVED_TABLE = ("changed-after", "left-alone", "clamped-again")


def clamp_refuses_a_changed_output(ClampInplace, cases=CLAMP_SAVED_CASES) -> None:
    """backward reads the saved output, so the version counter guards it. Visible: the caller changes the tensor
    the call returned in place (y.mul_(2)), and backward must raise autograd's in-place error rather than compute
    a mask from values that are no longer the output. CLAMP_SAVED_TABLE adds the output left alone (backward must
    not refuse it; a backward that fails otherwise is clamp_values' rule) and the output clamped again by a second
    call (refused too, where that call changed it: whether it does, and whether the output is x itself, is
    clamp_version_counter's rule)."""
    c.require_function(ClampInplace, CLAMP)
    start = _clamp_input((8,), -0.5, 0.5, 220, torch.float64)
    weight = c.randn(8, seed=221, requires_grad=False)
    for case in cases:
        leaf = start.clone().requires_grad_(True)
        what = f"y = {CLAMP}.apply(x, -0.5, 0.5)"
        with explained(what, CLAMP_RULES):
            y = ClampInplace.apply(leaf * 1.0, -0.5, 0.5)
        if not isinstance(y, torch.Tensor):
            c.fail("not-a-tensor", f"{what} should return a tensor (x itself), got {type(y).__name__}.")
        if case == "left-alone":
            _require_not_refused(y, weight, leaf, what)
            continue
        if case == "changed-after":
            what += ", then y.mul_(2) by the caller"
            if _refused(lambda: y.mul_(2.0)):
                continue  # autograd refused the change itself (y is a view): the caller got its error
        else:
            # Backward then runs the second call's backward first: one that fails on an ordinary call is
            # clamp_values' rule, and leaves nothing to see here.
            if not _backward_runs(ClampInplace, start, weight):
                continue
            what += f", then {CLAMP}.apply(y, -0.2, 0.3) on the same y"
            before = y.detach().clone()
            with explained(what, CLAMP_RULES):
                if _refused(lambda: ClampInplace.apply(y, -0.2, 0.3)):
                    continue
            if bool(torch.equal(y.detach(), before)):
                continue  # the second call did not change y: nothing to refuse (clamp_version_counter's rule)
        _require_refused(y, weight, leaf, what)


def _refused(change) -> bool:
    """Whether autograd refused an in-place change of the output itself (an output that is a view of x, changed
    in place: whether it should be a view is clamp_version_counter's rule)."""
    try:
        change()
    except RuntimeError as error:
        if raw_errors.says(error, "view-changed-in-place") or "is a view and is being modified inplace" in str(error):
            return True
        raise
    return False


def _backward_runs(ClampInplace, start, weight) -> bool:
    """Whether backward runs through an ordinary call left alone (without autograd's in-place error)."""
    leaf = start.clone().requires_grad_(True)
    try:
        torch.autograd.grad((ClampInplace.apply(leaf * 1.0, -0.5, 0.5) * weight).sum(), [leaf])
    except Exception:  # noqa: BLE001 - whatever it raised, the other cases and clamp_values name it
        return False
    return True


# autograd's in-place error from a backward of an output nothing changed
UNPROVOKED_RULES = tuple(
    Rule("error-without-change", error=raw, types=(RuntimeError,), message=
         "{what}, left alone: backward raised autograd's in-place error although nothing changed the output. The "
         "version counter of a saved tensor raises only when that tensor has changed.")
    for raw in ("inplace-error", "view-changed-in-place"))


def _require_not_refused(y, weight, leaf, what) -> None:
    """Nothing changed the output: backward must not raise autograd's in-place error (any other failure of it is
    clamp_values' to name)."""
    try:
        with explained(what, UNPROVOKED_RULES):
            torch.autograd.grad((y * weight).sum(), [leaf])
    except c.Mistake:
        raise
    except Exception:  # noqa: BLE001 - a backward that fails on an ordinary call is clamp_values' rule
        return


def _require_refused(x, weight, leaf, what) -> None:
    """The first call's saved output was changed: backward through it must raise autograd's in-place error (or,
    for an output that is a view of x, which is clamp_version_counter's rule, autograd's refusal of a view changed
    in place)."""
    with explained(f"{CLAMP}.backward", (c.NOT_IMPLEMENTED,)):
        try:
            torch.autograd.grad((x * weight).sum(), [leaf])
        except RuntimeError as error:
            if raw_errors.says(error, "inplace-error") or raw_errors.says(error, "view-changed-in-place"):
                return
            raise
    c.fail("output-change-unnoticed",
           f"{what}: y, your output, was changed after the call and backward did not notice. Its mask must come "
           "from the saved output: ctx.save_for_backward(x) after x.clamp_ (x is the output then), so that the "
           "version counter refuses a backward on changed values, rather than a mask or a copy kept on ctx.")


CLAMP_VERSION_CASES = ("saved-by-sin",)
CLAMP_VERSION_TABLE = ("saved-by-sin", "no-grad")          # (gradcheck is in CLAMP_VALUE_TABLE: the gradient's rule)


def clamp_version_counter(ClampInplace, cases=CLAMP_VERSION_CASES) -> None:
    """The in-place contract: x itself is changed, marked dirty and returned, its version counter moved (the
    clamped values are clamp_values' rule). Visible: x saved by an earlier op (sin saves its input), then clamped
    in place: backward through sin must raise autograd's in-place error. CLAMP_VERSION_TABLE adds a tensor
    without gradient, clamped in place."""
    c.require_function(ClampInplace, CLAMP)
    for case in cases:
        if case == "saved-by-sin":
            what = f"{CLAMP}.apply(x, -0.5, 0.5) after x.sin()"
            saved_then_changed(lambda x: _clamp_in_place(ClampInplace, x, -0.5, 0.5, what), what)
        elif case == "no-grad":
            x = _clamp_input((2, 3), -0.5, 0.5, 230, torch.float64)
            _clamp_in_place(ClampInplace, x, -0.5, 0.5, f"{CLAMP}.apply(x, -0.5, 0.5) for x that does not require "
                                                        "grad")
