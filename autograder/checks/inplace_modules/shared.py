"""What both in-place exercises of notebook 12 (ScaleInplace, ClampInplace) are checked with: autograd's errors
about an in-place forward in plain words, and the verdicts on a call that changes x in place: what it returned
(the values tests' rule) apart from the in-place contract (x itself changed, marked dirty and returned, its
version counter moved, autograd's refusal once something saved it: the version tests' rule)."""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks import raw_errors
from autograder.checks.explain import Rule, explained


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


# What autograd says about an in-place forward, in the learner's words.
INPLACE_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("dirty-not-returned", error="dirty-not-returned", message=
         "{what}: forward marked x dirty but returned another tensor (autograd: \"Some elements marked as dirty "
         "during the forward method were not returned as output\"). Return x itself after the in-place change: "
         "not a new tensor, not x.clone(), not a view of x.", types=(RuntimeError,)),
    Rule("saved-a-float", error="saved-a-float", message=
         "{what}: ctx.save_for_backward only takes tensors, and the bounds and scales of this notebook are "
         "Python floats: keep them as plain attributes on ctx (ctx.alpha = alpha).", types=(TypeError,)),
    Rule("leaf-changed", error=("leaf-in-place", "leaf-was-in-place"), message="{what}: {line}", types=(RuntimeError,)),
)


def require_returned(y, expected, what, fix) -> None:
    """What the call returned must hold `expected` (the values test's part: whether it is x itself, changed in
    place, is the in-place test's, `require_in_place`)."""
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor (x itself), got {type(y).__name__}.")
    c.require_close(y, expected, f"what {what} returned", "wrong-forward", f"forward must return {fix}.",
                    rtol=1e-12, atol=1e-14)


def require_in_place(y, x, before, version, what, fix) -> None:
    """The in-place contract, not the values (`require_returned`): x itself changed, returned, marked dirty (so the
    call's result is x itself), and its version counter moved."""
    if tuple(x.shape) == tuple(before.shape) and bool(torch.equal(x.detach(), before)):
        returned = "" if y is x else " and returned a new tensor"
        c.fail("returns-new-tensor",
               f"{what} left x unchanged{returned}: this Function works in place. Change x itself with {fix} (not "
               "on a clone), call ctx.mark_dirty(x), and return x.")
    if y is not x:
        c.fail("no-mark-dirty",
               f"{what} changed x in place but did not tell autograd: call ctx.mark_dirty(x) in forward and return "
               "x itself. Without it autograd hands back an alias of x and x keeps its old history, so anything "
               "computed from x afterwards gets a gradient that skips your Function, silently.")
    if x._version == version:
        c.fail("version-counter-missed",
               f"{what} changed x without moving its version counter (x._version is still {version}): the change "
               "went through x.data and x was not marked dirty, so autograd cannot know x changed.")


def inputs_with_history(shape, seed, dtype):
    """(leaf, x) pairs: x computed from the leaf, once by a plain copy and once two operations deeper, as in the
    middle of a network (by ops that save no tensor: one that saved x, such as tanh, would rightly refuse the
    change, see scale_version_counter)."""
    leaf = c.randn(*shape, seed=seed, dtype=dtype)
    deep = c.randn(*shape, seed=seed + 50, dtype=dtype)
    return [("x = leaf * 1.0", leaf, lambda: leaf * 1.0, lambda t: torch.ones_like(t)),
            ("x = 2 * leaf - 1", deep, lambda: 2 * deep - 1, lambda t: 2 * torch.ones_like(t))]


def grad_through(leaf, x, weight, what, rules):
    """The gradient of (x * weight).sum() with respect to the leaf, x used after the in-place call."""
    with explained(what, rules):
        (grad,) = c.backward_grads((x * weight).sum(), [leaf], what=what)
    return grad


def saved_then_changed(change, what) -> None:
    """An earlier op saved x (sin saves its input), then the Function changed x: backward through sin must raise
    autograd's in-place error."""
    leaf = c.randn(5, seed=30)
    x = leaf * 1.0
    saved_by = x.sin()
    change(x)
    with explained(what, (c.NOT_IMPLEMENTED,)):
        try:
            torch.autograd.grad(saved_by.sum(), [leaf])
        except RuntimeError as error:
            if raw_errors.says(error, "inplace-error"):
                return
            raise
    c.fail("version-counter-missed",
           f"{what}: x.sin() saved x for its backward, then your Function changed x, and autograd did not notice, "
           "so that backward silently used the changed x. Change x with an in-place op the version counter sees "
           "(x.mul_, x.clamp_; not through x.data) and mark it with ctx.mark_dirty(x).")
