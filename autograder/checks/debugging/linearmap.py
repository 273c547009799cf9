"""Checks for notebook 15's `LinearMap` (see `debugging`): `LinearMap.apply(x, w)` = x @ w.T, without copies: when
x or w is changed in place between forward and backward, backward raises autograd's in-place error (as
torch.nn.functional.linear does). A Function that saved clones answers with the old values instead, at the price
of a second copy of x and w per call: it loses this rule's points. The broken one saves `.data`, which the version
counter does not follow, and is silently wrong.
"""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.debugging.kept import require_grad_output_alone
from autograder.checks.debugging.shared import fmt, symptom_remains
from autograder.checks.explain import Rule


LINEAR = "LinearMap"
LINEAR_INPUTS = ("x", "w")
LINEAR_HINT = ("the gradient of x @ w.T is grad_output times w for x, and the transpose of grad_output times x for "
               "w (matrix products).")
# (which input is changed in place, N, M, D, seed)
INPLACE_CASES = tuple((changed, n, m, d, 400 + 10 * seed + k) for seed in (0, 1)
                      for k, (changed, n, m, d) in enumerate((("w", 5, 2, 3), ("x", 5, 2, 3), ("w", 1, 4, 4),
                                                              ("x", 3, 3, 1), ("both", 4, 2, 5))))
LINEAR_VALUES_CASES = tuple((n, m, d, 500 + k) for k, (n, m, d) in enumerate(((5, 2, 3), (1, 1, 1), (4, 4, 4),
                                                                              (2, 6, 3))))

UNPROVOKED_RULES = (
    Rule("error-without-change", error="inplace-error", message=
         "{what} raised autograd's in-place error ({line}) although nothing was changed in place. The version counter "
         "of a tensor saved with ctx.save_for_backward raises only when that tensor has changed.",
         types=(RuntimeError,)),
) + c.engine_rules(LINEAR_INPUTS)


def _linear_inputs(n, m, d, seed):
    x, w = c.randn(n, d, seed=seed), c.randn(m, d, seed=seed + 1)
    return x, w, c.randn(n, m, seed=seed + 2, requires_grad=False)


def linear_inplace(LinearMap, cases=INPLACE_CASES[:1]) -> None:
    """x, w (non-leaves) changed in place between forward and backward, as an optimizer step or a ReLU_ does: backward
    raises autograd's in-place error (neither the changed values nor copies of the old ones). And with nothing
    changed, backward runs."""
    c.require_function(LinearMap, LINEAR)
    c.require_self_contained(LinearMap, LINEAR)
    def one_case(changed, n, m, d, seed) -> None:
        leaf_x, leaf_w, g = _linear_inputs(n, m, d, seed)
        x, w = leaf_x * 1.0, leaf_w * 1.0   # non-leaves we may change in place
        what = f"{LINEAR}.apply(x, w) for x of shape {fmt(x.shape)}, w of shape {fmt(w.shape)}"
        out = c.call(LinearMap.apply, x, w, what=what, names=LINEAR_INPUTS)
        expected = (g @ w.detach(), g.T @ x.detach())       # what forward saw
        with torch.no_grad():
            for name, t in (("x", x), ("w", w)):
                if changed in (name, "both"):
                    t.mul_(2.0).add_(1.0)
        grads = []
        error = c.inplace_error(lambda: grads.extend(torch.autograd.grad(out, [leaf_x, leaf_w], g)),
                                f"{LINEAR}.backward", LINEAR_INPUTS)
        if error is None:
            names = 'x and w were' if changed == 'both' else changed + ' was'
            if all(bool(torch.allclose(grad, ref, rtol=1e-7, atol=1e-9)) for grad, ref in zip(grads, expected)):
                c.fail("keeps-copies",
                       f"{what}: {names} changed in place after forward, and backward returned the gradient of the "
                       "old values without an error: forward kept copies of its inputs, a second x and w in memory "
                       "per call. Keep the tensors themselves, where autograd's version counter refuses a change "
                       "(the in-place error is the right outcome here, as for torch.nn.functional.linear).")
            c.fail("not-saved-for-backward",
                   f"{what}: {names} changed in place after forward, and backward returned a gradient computed "
                   "from the changed values, without an error: the version counter never saw the tensors backward "
                   "read. Find out what forward saved, and whether a change to x or w reaches it.")
        _linear_unprovoked(LinearMap, n, m, d, seed + 5)
    c.each(cases, lambda case: one_case(*case))


def _linear_unprovoked(LinearMap, n, m, d, seed) -> None:
    """With nothing changed, backward must not raise autograd's in-place error (any other failure of backward, a
    gradient's shape among them, is the values test's to name)."""
    leaf_x, leaf_w, g = _linear_inputs(n, m, d, seed)
    out = c.call(LinearMap.apply, leaf_x * 1.0, leaf_w * 1.0, what=f"{LINEAR}.apply(x, w)", names=LINEAR_INPUTS)
    try:
        with c.explained(f"{LINEAR}.backward (x and w results of other operations, left alone)", UNPROVOKED_RULES):
            torch.autograd.grad(out, [leaf_x, leaf_w], g)
    except c.Mistake as mistake:
        if mistake.code == "error-without-change":
            raise


def linear_values(LinearMap, cases=LINEAR_VALUES_CASES[:1]) -> None:
    """Value and both gradients with a random grad_output, nothing changed in place; the point counts once the
    report's symptom is gone (the broken Function keeps this rule)."""
    c.require_function(LinearMap, LINEAR)
    def one_case(n, m, d, seed) -> None:
        x, w, g = _linear_inputs(n, m, d, seed)
        what = f"{LINEAR}.apply(x, w) for x of shape {fmt(x.shape)}, w of shape {fmt(w.shape)}"
        out = c.call(LinearMap.apply, x, w, what=what, names=LINEAR_INPUTS)
        c.require_float64_kept(out, x.detach() @ w.detach().T, what, "forward")
        c.require_close(out, x.detach() @ w.detach().T, what, "wrong-forward", "forward returns x @ w.T.",
                        rtol=1e-10, atol=1e-12)
        # a copy of g: a backward that writes into grad_output is judged below (debugging/kept.py)
        grads = c.backward_grads(out, [x, w], g.clone(), what=f"{LINEAR}.backward", names=LINEAR_INPUTS)
        for name, grad, ref in zip(LINEAR_INPUTS, grads, (g @ w.detach(), g.T @ x.detach())):
            if grad is None:
                c.fail("missing-gradient", f"{what}: {name} requires grad but got none. Return its gradient.")
            c.require_float64_kept(grad, ref, f"the gradient of {name} ({what})", "backward")
            c.require_close(grad, ref, f"the gradient of {name} ({what})", "wrong-derivative", LINEAR_HINT,
                            rtol=1e-10, atol=1e-12)
    c.each(cases, lambda case: one_case(*case))
    # grad_output left alone, as the broken Function does (debugging/kept.py)
    require_grad_output_alone(LinearMap, LINEAR, lambda: [list(_linear_inputs(3, 2, 4, 510)[:2]),
                                                          list(_linear_inputs(1, 3, 2, 511)[:2])], LINEAR_INPUTS)
    linear_symptom_gone(LinearMap)   # the broken Function already keeps this rule: its point stands for the fix


def linear_symptom_gone(LinearMap) -> None:
    """The report's case (w stepped in place between forward and backward): backward does not silently return the
    gradient of the changed w (it raises, or returns the gradient of the values forward saw)."""
    leaf_x, leaf_w, g = _linear_inputs(5, 2, 3, 950)
    x, w = leaf_x * 1.0, leaf_w * 1.0
    out = c.call(LinearMap.apply, x, w, what=f"{LINEAR}.apply(x, w)", names=LINEAR_INPUTS)
    with torch.no_grad():
        w.sub_(0.5)
    grads = []
    if c.inplace_error(lambda: grads.extend(torch.autograd.grad(out, [leaf_x], g)), f"{LINEAR}.backward",
                       LINEAR_INPUTS) is None and not bool(torch.allclose(grads[0], g @ (w.detach() + 0.5))):
        symptom_remains(LINEAR, "after w is changed in place, backward still silently uses the changed w")
