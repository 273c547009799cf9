"""Checks for notebook 15's `Gaussian` (see `debugging`): `Gaussian.apply(x)` = exp(-x**2), whose output is freed
as soon as its caller drops it. The broken one keeps the output as a ctx attribute: a reference cycle only the
garbage collector breaks; keeping `out.detach()` or `out.data` instead breaks the cycle but lets backward read an
output changed in place, and a clone is a copy per call. Whether the output is freed, what the node keeps, and
what backward does after the output changed in place are facts only the learner's process can see
(`dropped_output`, read from the record the learner's process keeps of every call; `output_changed_in_place`, a
probe); the values are computed in the judge.
"""

from __future__ import annotations

import gc
import weakref

import torch

from autograder.checks import behaviour, raw_errors
from autograder.checks.behaviour import record as behaviour_record
from autograder.checks import common as c
from autograder.checks.debugging.kept import require_grad_output_alone
from autograder.checks.debugging.shared import fmt, symptom_remains


GAUSSIAN = "Gaussian"
GAUSSIAN_HINT = "the derivative of exp(-x**2) is -2 x exp(-x**2), times grad_output."
FREED_CASES = (((4,), 600), ((2, 3), 601), ((), 602), ((1000,), 603))
GAUSSIAN_VALUES_CASES = (((5,), 610), ((3, 4), 611), ((), 612), ((2, 1, 3), 613))

def _tensors_in(value, depth=3):
    """The tensors in a ctx attribute: itself, or inside lists, tuples and dicts, a few levels deep."""
    if isinstance(value, torch.Tensor):
        yield value
    elif depth and isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(item, depth - 1)
    elif depth and isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item, depth - 1)


def _copies_kept(node, own) -> list:
    """The shapes of the tensors `node` keeps (saved, or as ctx attributes) whose memory is neither x's nor the
    output's: copies, each one more tensor per call for as long as the graph lives."""
    kept = list(_tensors_in(getattr(node, "__dict__", {})))
    try:
        kept.extend(node.saved_tensors)
    except RuntimeError:  # (saved tensors freed or never saved: nothing kept there)
        pass
    mine = {t.untyped_storage().data_ptr() for t in own}
    return [list(t.shape) for t in kept
            if t.numel() and t.layout == torch.strided and t.untyped_storage().data_ptr() not in mine]


def dropped_output(Fn, x) -> dict:
    """Is out = Fn.apply(x) freed as soon as its last reference is dropped, before any backward ("freed") and after
    one ("freed_after_backward"); and, if not, once the collector runs ("collected"). Each call is an ordinary one:
    the learner's process records every call it serves the same way, under the same collector state, and lets go
    of both calls read here only after the last of them (`behaviour.record.recorded(release=True)`)."""
    if behaviour_record.serving() is None:
        behaviour_record.noted("record of an ordinary call")
        return _dropped_here(Fn, x)
    leaf = x.detach().requires_grad_(True)
    out = behaviour_record.ordinary_call(Fn, leaf)
    if not isinstance(out, torch.Tensor):
        return {"output": None}
    facts = {"output": out.detach().clone()}
    del out
    out = behaviour_record.ordinary_call(Fn, leaf)
    torch.autograd.grad(out, [leaf], torch.ones_like(out))  # a grad_output of its own (writes: values')
    del out
    released = behaviour_record.recorded(release=True)  # both calls at once, after the last of them
    freed = list(released.get("freed") or [])[-2:]
    if len(freed) != 2:
        return {"output": None}
    facts["freed"], facts["freed_after_backward"] = bool(freed[0]), bool(freed[1])
    collected = list(released.get("collected") or freed)[-2:]
    facts["collected"] = all(bool(f) for f in collected)
    return facts


def _dropped_here(Fn, x) -> dict:
    """`dropped_output` in one process (a notebook), with the garbage collector paused meanwhile."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        leaf = x.detach().requires_grad_(True)
        out = Fn.apply(leaf)
        if not isinstance(out, torch.Tensor):
            return {"output": None}
        facts = {"output": out.detach().clone()}
        ref = weakref.ref(out)
        del out
        facts["freed"] = ref() is None
        out = Fn.apply(leaf)
        torch.autograd.grad(out, [leaf], torch.ones_like(out))  # a grad_output of its own (writes: values')
        ref_after = weakref.ref(out)
        del out
        facts["freed_after_backward"] = ref_after() is None
        gc.collect()
        facts["collected"] = ref() is None and ref_after() is None
        return facts
    finally:
        if was_on:
            gc.enable()


@c.probe
def output_changed_in_place(Fn, x, g) -> dict:
    """In the learner's process: out = Fn.apply(x); the copies its node keeps; then out is changed in place (as a
    ReLU_ or a normalisation written in place would) and backward runs: autograd's in-place error, or the gradient
    it returned."""
    leaf = x.detach().requires_grad_(True)
    out = behaviour.function_apply(Fn, leaf)
    if not isinstance(out, torch.Tensor) or out.grad_fn is None:
        return {"node": False}
    facts = {"node": True, "copies": _copies_kept(out.grad_fn, (leaf, out))}
    with torch.no_grad():
        out.mul_(2.0).add_(1.0)
    try:
        (grad,) = torch.autograd.grad(out, [leaf], g.clone())  # g stays the caller's (writes: values')
    except RuntimeError as error:
        if not raw_errors.says(error, "inplace-error"):
            raise
        return {**facts, "inplace_error": True}
    return {**facts, "inplace_error": False, "grad": grad.detach()}


@c.probe
def input_changed_in_place(Fn, x, g) -> dict:
    """In the learner's process: out = Fn.apply(x) for an x made by an earlier operation, then x is changed in place
    (as an optimiser step or an in-place activation would) and backward runs: autograd's in-place error, or the
    gradient (with respect to the leaf x came from) it returned, and the one the same call gives unchanged."""
    grads = []
    for change in (False, True):
        leaf = x.detach().requires_grad_(True)
        inner = leaf * 1.0
        out = behaviour.function_apply(Fn, inner)
        if not isinstance(out, torch.Tensor) or out.grad_fn is None:
            return {"node": False}
        if change:
            with torch.no_grad():
                inner.mul_(2.0).add_(1.0)
        try:
            (grad,) = torch.autograd.grad(out, [leaf], g.clone())  # g stays the caller's (writes: values')
        except RuntimeError as error:
            if not change or not raw_errors.says(error, "inplace-error"):
                raise
            return {"node": True, "inplace_error": True}
        grads.append(None if grad is None else grad.detach())
    return {"node": True, "inplace_error": False, "unchanged": grads[0], "grad": grads[1]}


def _input_guarded(Gaussian, x, g, what) -> None:
    facts = c.call(input_changed_in_place, Gaussian, x, g, what=what)
    if not facts.get("node") or facts["inplace_error"] or not isinstance(facts["unchanged"], torch.Tensor):
        return   # no node, no gradient: the output's and the values' checks name them
    # against the gradient this Function gives when x is left alone (whether that is right is the values' rule)
    changed, unchanged = facts["grad"], facts["unchanged"]
    if not isinstance(changed, torch.Tensor) or not bool(torch.allclose(changed, unchanged, rtol=1e-7, atol=1e-9)):
        c.fail("unguarded-input",
               f"{what}: x was changed in place after forward, and backward returned a gradient computed from the "
               "changed values, without an error: x was kept through an alias the version counter does not follow "
               "(.data, or a copy). Keep it only where autograd checks its version.")


def _output_guarded(Gaussian, x, what) -> None:
    """The output changed in place after forward: backward raises autograd's in-place error or returns the gradient
    forward's values give, and the node keeps no copy (of the output or of anything else)."""
    g = c.randn(*x.shape, seed=int(x.numel()) + 17, requires_grad=False)
    facts = c.call(output_changed_in_place, Gaussian, x, g, what=what)
    if not facts.get("node"):
        c.fail("no-graph", f"{what}: the output has no node of its own. Call the Function through .apply.")
    if facts["copies"]:
        c.fail("keeps-a-copy",
               f"{what}: its node keeps {len(facts['copies'])} tensor(s) of shape(s) {facts['copies']} that are "
               "neither x nor the output but copies: one more tensor per call, for as long as the graph lives. "
               "Backward needs x and the output themselves, kept where autograd's version counter guards them, or "
               "x alone.")
    _input_guarded(Gaussian, x, g, what)
    if facts["inplace_error"]:
        return
    right = -2 * x * torch.exp(-x ** 2) * g
    if not bool(torch.allclose(facts["grad"], right, rtol=1e-7, atol=1e-9)):
        c.fail("unguarded-output",
               f"{what}: the output was changed in place after forward, and backward returned a gradient computed "
               "from the changed values, without an error: what backward read of the output was kept through an "
               "alias the version counter does not follow. Keep the output only where autograd checks its version.")


def gaussian_freed(Gaussian, cases=FREED_CASES[:1]) -> None:
    """The output is kept the way autograd guards it: freed when the caller drops it (its last reference), before
    and after backward, nothing waiting for the garbage collector; and changed in place after forward, never read
    silently by backward, and never kept as a copy."""
    c.require_function(Gaussian, GAUSSIAN)
    c.require_self_contained(Gaussian, GAUSSIAN)
    for shape, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"{GAUSSIAN}.apply(x) for x of shape {fmt(x.shape)}"
        facts = c.call(dropped_output, Gaussian, x, what=what)
        if facts.get("output") is None:
            c.fail("not-a-tensor", f"{what} should return a tensor.")
        c.require_close(facts["output"], torch.exp(-x ** 2), what, "wrong-forward", "forward returns exp(-x**2).")
        for key, when in (("freed", "before backward"), ("freed_after_backward", "after one backward")):
            if not facts[key]:
                later = ("only the garbage collector frees it, whenever it next runs" if facts["collected"]
                         else "even the garbage collector does not free it")
                c.fail("reference-cycle",
                       f"{what}: {when}, the caller dropped its last reference to the output, and the output "
                       f"stayed alive ({later}). In a training loop that is one output (and everything its graph "
                       "holds) more per step. Find what still refers to the output once the caller has let it go.")
        _output_guarded(Gaussian, x, what)


def gaussian_values(Gaussian, cases=GAUSSIAN_VALUES_CASES[:1]) -> None:
    """Value and gradient with a random grad_output; the point counts once the report's symptom is gone (the broken
    Function keeps this rule)."""
    c.require_function(Gaussian, GAUSSIAN)
    def one_case(shape, seed) -> None:
        x = c.randn(*shape, seed=seed)
        what = f"{GAUSSIAN}.apply(x) for x of shape {fmt(x.shape)}"
        y = c.call(Gaussian.apply, x, what=what)
        expected = torch.exp(-x.detach() ** 2)
        c.require_float64_kept(y, expected, what, "forward")
        c.require_close(y, expected, what, "wrong-forward", "forward returns exp(-x**2).", rtol=1e-10, atol=1e-12)
        g = c.randn(*shape, seed=seed + 1, requires_grad=False)
        # a copy of g: a backward that writes into grad_output is judged below (debugging/kept.py)
        (grad,) = c.backward_grads(y, [x], g.clone(), what=f"{GAUSSIAN}.backward")
        if grad is None:
            c.fail("no-graph", f"{what}: x received no gradient. Return the gradient from backward.")
        c.require_float64_kept(grad, -2 * x.detach() * expected * g, f"the gradient of {what}", "backward")
        c.require_close(grad, -2 * x.detach() * expected * g, f"the gradient of {what}", "wrong-derivative",
                        GAUSSIAN_HINT, rtol=1e-10, atol=1e-12)
    c.each(cases, lambda case: one_case(*case))
    # grad_output left alone, as the broken Function does (debugging/kept.py)
    require_grad_output_alone(Gaussian, GAUSSIAN, lambda: [[c.randn(3, 4, seed=620)], [c.randn(5, seed=621)]])
    gaussian_symptom_gone(Gaussian)   # the broken Function already keeps this rule: its point stands for the fix


def gaussian_symptom_gone(Gaussian) -> None:
    """The report's case (a training step: forward, backward, the output dropped): the output is freed without the
    garbage collector."""
    facts = c.call(dropped_output, Gaussian, c.randn(1000, seed=960, requires_grad=False), what=f"{GAUSSIAN}.apply(x)")
    if not facts.get("freed_after_backward"):
        symptom_remains(GAUSSIAN, "after a training step, its output still waits for the garbage collector")
