"""Checks for notebook 15's `Gaussian` (see `debugging`): `Gaussian.apply(x)` = exp(-x**2), whose output is freed
as soon as its caller drops it. The broken one keeps the output as a ctx attribute: a reference cycle only the
garbage collector breaks. Whether the output is freed is a fact only the learner's process can see
(`dropped_output`, read from the record the learner's process keeps of every call); the values are computed in the
judge.
"""

from __future__ import annotations

import gc
import weakref

import torch

from autograder.checks import behaviour_record
from autograder.checks import common as c
from autograder.checks.debugging_shared import _fmt


GAUSSIAN = "Gaussian"
GAUSSIAN_HINT = "the derivative of exp(-x**2) is -2 x exp(-x**2): -2 * x * output, times grad_output."
FREED_CASES = (((4,), 600), ((2, 3), 601), ((), 602), ((1000,), 603))
GAUSSIAN_VALUES_CASES = (((5,), 610), ((3, 4), 611), ((), 612), ((2, 1, 3), 613))

def dropped_output(Fn, x) -> dict:
    """Is out = Fn.apply(x) freed as soon as its last reference is dropped, before any backward ("freed") and after
    one ("freed_after_backward"); and, if not, once the collector runs ("collected"). Each call is an ordinary one:
    the learner's process records every call it serves the same way, under the same collector state, and lets go
    of both calls read here only after the last of them (`behaviour_record.recorded(release=True)`)."""
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
    torch.autograd.grad(out.sum(), [leaf])
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
        torch.autograd.grad(out.sum(), [leaf])
        ref_after = weakref.ref(out)
        del out
        facts["freed_after_backward"] = ref_after() is None
        gc.collect()
        facts["collected"] = ref() is None and ref_after() is None
        return facts
    finally:
        if was_on:
            gc.enable()


def gaussian_freed(Gaussian, cases=FREED_CASES[:1]) -> None:
    """The output is freed when the caller drops it (its last reference), before and after backward: nothing
    waits for the garbage collector."""
    c.require_function(Gaussian, GAUSSIAN)
    c.require_self_contained(Gaussian, GAUSSIAN)
    for shape, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False)
        what = f"{GAUSSIAN}.apply(x) for x of shape {_fmt(x.shape)}"
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


def gaussian_values(Gaussian, cases=GAUSSIAN_VALUES_CASES[:1]) -> None:
    """Value and gradient with a random grad_output."""
    c.require_function(Gaussian, GAUSSIAN)
    for shape, seed in cases:
        x = c.randn(*shape, seed=seed)
        what = f"{GAUSSIAN}.apply(x) for x of shape {_fmt(x.shape)}"
        y = c.call(Gaussian.apply, x, what=what)
        expected = torch.exp(-x.detach() ** 2)
        c.require_close(y, expected, what, "wrong-forward", "forward returns exp(-x**2).")
        g = c.randn(*shape, seed=seed + 1, requires_grad=False)
        (grad,) = c.backward_grads(y, [x], g, what=f"{GAUSSIAN}.backward")
        if grad is None:
            c.fail("no-graph", f"{what}: x received no gradient. Return the gradient from backward.")
        c.require_close(grad, -2 * x.detach() * expected * g, f"the gradient of {what}", "wrong-derivative",
                        GAUSSIAN_HINT)
