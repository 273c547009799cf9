"""Checks for notebook 13's `SafeNorm` (see `safe_gradients`): backward leaves what forward saved as it was (the
saved norm is the caller's output). A guard for zero rows written in place (norm[norm == 0] = 1, clamp_min_) breaks
it; autograd's version counter sees the same change under gradcheck, so the values test (the derivative rule) asks
it, on a batch with a zero row, where such a guard changes something.
"""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.common import kept_guarded

NAME = "SafeNorm"


def check_saved_unchanged(SN, x, g, label, shape_rules=()):
    """forward and backward called directly with a stand-in ctx, in this process's view: the tensors forward saved
    (the output among them) hold the same values after backward as before it."""
    what = f"SafeNorm.forward and SafeNorm.backward, called directly ({label})"
    ctx = behaviour.stand_in_ctx(NAME, (True,))
    leaf = x.detach()
    with torch.no_grad(), c.explained(what, shape_rules):
        if c.uses_setup_context(SN):
            y = c.call(SN.forward, leaf, what=f"SafeNorm.forward ({label})")
            c.call(SN.setup_context, ctx, (leaf,), y, what=f"SafeNorm.setup_context ({label})")
        else:
            y = c.call(SN.forward, ctx, leaf, what=f"SafeNorm.forward ({label})")
        saved = [t for t in ctx.saved_tensors if isinstance(t, torch.Tensor)]
        before = [t.clone() for t in saved]
        output_before = y.clone() if isinstance(y, torch.Tensor) else None
        c.call(SN.backward, ctx, g, what=f"SafeNorm.backward ({label})")
    output_changed = output_before is not None and not _same(y, output_before)
    changed = [k for k, (t, b) in enumerate(zip(saved, before)) if not _same(t, b)]
    if output_changed or any(_same(before[k], output_before) for k in changed if output_before is not None):
        now = y if output_changed else saved[changed[0]]
        c.fail("modifies-output",
               f"after backward, the output of SafeNorm.forward ({label}) has changed from "
               f"{output_before.tolist()[:4]} to {now.tolist()[:4]}: your backward changed the saved norm in place "
               "(as norm[norm == 0] = 1 does), and that tensor is the output your caller holds. Build a new tensor "
               "instead: torch.where(norm > 0, norm, 1.0), or norm.clamp_min(...) without the trailing underscore.")
    if changed:
        c.fail("modifies-output",
               f"SafeNorm.backward ({label}) changed saved tensor {changed[0] + 1} in place: what forward saved "
               "belongs to the caller (x is the caller's input). Build new tensors in backward instead of changing "
               "the saved ones.")
    _check_saved_unchanged_for_real(SN, x, g, label, shape_rules)


def _check_saved_unchanged_for_real(SN, x, g, label, shape_rules):
    """The same property through the node autograd made (`behaviour.real_node`, in the learner's process): after one
    real backward, the output and every tensor the node saved hold the values they had after forward. A stand-in
    ctx can be recognised; the real node cannot be told from real use."""
    what = f"SafeNorm.apply(x) and one backward through it ({label})"
    with c.explained(what, shape_rules):
        facts = c.call(behaviour.real_node, SN, (x.detach().clone().requires_grad_(True),), g, what=what)
    if not facts["node"] or "after" not in facts:
        return  # no node of its own, or backward raised: the other tests of SafeNorm say so
    y, after = facts["values"], facts["after"]
    lead = f"Called directly, your backward left what forward saved alone; but under autograd ({what}), "
    if not _same(after["output"], y.detach()):
        c.fail("modifies-output",
               f"{lead}the output changed from {y.detach().tolist()[:4]} to {after['output'].tolist()[:4]}: your "
               "backward changed the saved norm in place (as norm[norm == 0] = 1 does), and that tensor is the "
               "output your caller holds. Build a new tensor instead: torch.where(norm > 0, norm, 1.0).")
    if after.get("saved_error"):
        c.fail("modifies-output",
               f"{lead}its node could no longer read what forward saved ({after['saved_error']}): your backward "
               "changed a saved tensor in place, and what forward saved belongs to the caller. Build new tensors in "
               "backward instead of changing the saved ones.")
    for k, (before, now) in enumerate(zip(facts["saved"], after["saved"] or ())):
        if not _same(before["tensor"], now):
            c.fail("modifies-output",
                   f"{lead}saved tensor {k + 1} changed in place: what forward saved belongs to the caller. Build "
                   "new tensors in backward instead of changing the saved ones.")


def _same(a, b) -> bool:
    """Same shape and values, a nan where the other has a nan (a saved x / norm may hold one)."""
    return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all())


def check_kept_guarded(SN, shape_rules=()) -> None:
    """x, then the output, changed in place after forward (each alone: a change backward guards would hide the other
    kept as a ctx attribute): backward raises autograd's in-place error or gives the gradient of the call left alone
    (common/kept_guarded.py). The values test's rule, SafeNorm having no saving rule of its own."""
    x = torch.tensor([[3.0, 4.0, 0.0], [1.0, -2.0, 2.0], [0.5, 0.5, -0.5]], dtype=torch.float64)
    with c.explained("SafeNorm.apply(x), then a change in place", shape_rules):
        for kept, change in (("x", kept_guarded.change_inputs(0)),
                             ("the norm (the output)", kept_guarded.change_output(0))):
            kept_guarded.require_kept_guarded(SN.apply, [x], what="SafeNorm.backward", kept=kept, change=change)
