"""The judge's own derivative beside gradcheck (`require_vjp`).

gradcheck compares backward with finite differences of the learner's own forward; a forward that recognises the
finite-difference steps (inputs within a few eps of one it saw before) can answer them with the first-order value of
its wrong derivative, and the two Jacobians agree. So a test whose gradient evidence is gradcheck also compares the
learner's backward, on a random grad_output, with the vector-Jacobian product autograd takes through the judge's own
reference (the exercise's formula written with torch ops, in the judge): the forward's detection of steps gains
nothing there.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from autograder.checks import common as c


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def fresh_inputs(inputs: tuple, seed: int) -> tuple:
    """New random inputs like `inputs` (each tensor's shape, dtype and requires_grad; anything else as it is), drawn
    from the grading's seed: an input the learner's code meets for the first time, as a value test's would be."""
    return tuple(c.randn(*t.shape, seed=seed + k, dtype=t.dtype, requires_grad=t.requires_grad)
                 if isinstance(t, torch.Tensor) and t.is_floating_point() else t for k, t in enumerate(inputs))


def _agree(outputs: tuple, expected: tuple) -> bool:
    """The learner's forward gave the reference's values: else a forward mistake, which the values test judges (one
    mistake costs its own rule's points), and no derivative of the reference is the derivative of that forward."""
    for o, e in zip(outputs, expected):
        if isinstance(e, torch.Tensor):
            if not isinstance(o, torch.Tensor) or o.shape != e.shape or o.dtype != e.dtype \
                    or not bool(torch.allclose(o.detach(), e.detach(), rtol=1e-6, atol=1e-9)):
                return False
    return True


def require_vjp(fn: Callable, inputs: tuple, reference: Callable, what: str, code: str = "wrong-derivative",
                hint: str = "", names: Sequence[str] = (), seed: int = 9001) -> None:
    """At new random inputs like `inputs`, fn's gradients for a random grad_output (both drawn from the grading's
    seed) equal those of `reference`, taken by autograd in the judge (gradcheck's tolerances, atol 1e-5 and rtol
    1e-3). Where fn's forward itself disagrees with the reference there, nothing more is asked (the values test
    judges the forward)."""
    inputs = fresh_inputs(inputs, seed + 100)
    wanted = [k for k, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not wanted:
        return
    with c.explained(what, c.engine_rules(names)):
        outputs = _as_tuple(fn(*inputs))
    mine = tuple(t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
                 for t in inputs)
    with torch.enable_grad():
        expected = _as_tuple(reference(*mine))
    if not _agree(outputs, expected):
        return
    pairs = [(o, e) for o, e in zip(outputs, expected) if isinstance(o, torch.Tensor) and isinstance(e, torch.Tensor)
             and e.requires_grad]
    if not pairs:
        return
    grad_outputs = [c.randn(*e.shape, seed=seed + k, requires_grad=False, dtype=e.dtype)
                    for k, (_, e) in enumerate(pairs)]
    theirs = [o for o, _ in pairs if o.requires_grad]
    if len(theirs) < len(pairs):
        c.fail("no-graph", f"{what}: the output has no gradient history (backward is never reached).")
    # copies: a backward that writes into grad_output is the values test's rule (grading, it writes into the learner's
    # copy alone: the same here)
    got = c.backward_grads(theirs, [inputs[k] for k in wanted], [g.clone() for g in grad_outputs], what=what,
                           names=names)
    want = torch.autograd.grad([e for _, e in pairs], [mine[k] for k in wanted], grad_outputs, allow_unused=True)
    for k, g, w in zip(wanted, got, want):
        label = names[k] if k < len(names) else f"input {k + 1}"
        w = torch.zeros_like(mine[k]) if w is None else w
        if g is None:
            g = torch.zeros_like(w)
        c.require_close(g, w, f"the gradient of {what} with respect to {label}, for a random grad_output", code,
                        hint, rtol=1e-3, atol=1e-5)


def require_second_vjp(fn: Callable, inputs: tuple, reference: Callable, what: str,
                       code: str = "not-twice-differentiable", hint: str = "", seed: int = 9101) -> None:
    """What gradgradcheck checks, against the judge's own second derivative, at new random inputs: the gradient
    (random grad_output g, with create_graph) differentiated again with a random v, against the same through
    `reference` in the judge. A backward that recognises gradgradcheck's finite-difference steps gains nothing here.
    Where the forward or the first derivative disagrees with the reference, nothing more is asked (their own tests
    judge them)."""
    inputs = fresh_inputs(inputs, seed + 100)
    wanted = [k for k, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not wanted:
        return
    with c.explained(what, c.engine_rules(())):
        out = _as_tuple(fn(*inputs))[0]
    mine = tuple(t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
                 for t in inputs)
    with torch.enable_grad():
        expected = _as_tuple(reference(*mine))[0]
    if not _agree((out,), (expected,)):
        return
    g = c.randn(*expected.shape, seed=seed, requires_grad=False, dtype=expected.dtype)
    vs = [c.randn(*mine[k].shape, seed=seed + 1 + k, requires_grad=False, dtype=mine[k].dtype) for k in wanted]
    if not isinstance(out, torch.Tensor) or not out.requires_grad:
        c.fail("no-graph", f"{what}: the output has no gradient history (backward is never reached).")
    with c.explained(what, c.engine_rules(())):
        first = torch.autograd.grad(out, [inputs[k] for k in wanted], g, create_graph=True, allow_unused=True)
        pairs = [(f, v) for f, v in zip(first, vs) if f is not None and f.requires_grad]
        got = torch.autograd.grad([f for f, _ in pairs], [inputs[k] for k in wanted], [v for _, v in pairs],
                                  allow_unused=True) if pairs else [None] * len(wanted)
    first_ref = torch.autograd.grad(expected, [mine[k] for k in wanted], g, create_graph=True, allow_unused=True)
    pairs_ref = [(f, v) for f, v in zip(first_ref, vs) if f is not None and f.requires_grad]
    want = torch.autograd.grad([f for f, _ in pairs_ref], [mine[k] for k in wanted], [v for _, v in pairs_ref],
                               allow_unused=True) if pairs_ref else [None] * len(wanted)
    first_mine = [torch.zeros_like(mine[k]) if f is None else f for k, f in zip(wanted, first_ref)]
    first_theirs = [torch.zeros_like(mine[k]) if f is None else f for k, f in zip(wanted, first)]
    if not _agree(tuple(first_theirs), tuple(first_mine)):
        return  # a first-derivative mistake: the gradient tests judge it
    for k, got_k, want_k in zip(wanted, got, want):
        want_k = torch.zeros_like(mine[k]) if want_k is None else want_k
        got_k = torch.zeros_like(want_k) if got_k is None else got_k
        c.require_close(got_k, want_k, f"the second derivative of {what} (a random grad_output, then a random "
                        "direction)", code, hint, rtol=1e-3, atol=1e-5)
