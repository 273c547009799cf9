"""Checks for notebook 15's `ScaleShift` (see `debugging`): `ScaleShift.apply(x, w, b)` = x * w + b for
broadcastable x, w, b. The broken one sums w's gradient before the product it belongs to is formed, which is only
wrong when w broadcasts.
"""

from __future__ import annotations

import contextlib

import torch

from autograder.checks import common as c
from autograder.checks.debugging.kept import OUTPUT, require_grad_output_alone, require_inputs_kept
from autograder.checks.debugging.shared import fmt, symptom_remains


SCALE = "ScaleShift"
SCALE_INPUTS = ("x", "w", "b")
SCALE_HINT = ("the gradient of x * w + b is grad_output * w for x, grad_output * x for w and grad_output for b, each "
              "summed down to its input's shape only once it is complete.")
# (x's shape, w's shape, b's shape): w broadcasts in each, x and b in some
BROADCAST_SHAPES = (((4, 3), (3,), (3,)), ((2, 3, 4), (4,), (1, 4)), ((3, 4), (3, 1), (4,)), ((5, 2), (1, 2), ()),
                    ((2, 1, 3), (4, 3), (3,)), ((2, 3), (2, 1, 1), (1,)))
SAME_SHAPES = (((4, 3), (4, 3), (4, 3)), ((2, 3, 2), (2, 3, 2), (2,)), ((5,), (5,), (5,)), ((), (), ()))
BROADCAST_CASES = tuple((shapes, 40 + 10 * seed + k) for seed in (0, 1) for k, shapes in enumerate(BROADCAST_SHAPES))
SAME_CASES = tuple((shapes, 140 + 10 * seed + k) for seed in (0, 1) for k, shapes in enumerate(SAME_SHAPES))


def _scale_grads(Fn, shapes, seed):
    """(inputs, grad_output, the learner's gradients through autograd, the reference gradients)."""
    x, w, b = (c.randn(*s, seed=seed + 100 * k) for k, s in enumerate(shapes))
    out = c.call(Fn.apply, x, w, b, what=f"{SCALE}.apply(x, w, b)", names=SCALE_INPUTS)
    shape = torch.broadcast_shapes(*shapes)
    c.require_shape(out, shape, f"{SCALE}.apply(x, w, b) for shapes {', '.join(map(fmt, shapes))}")
    c.require_close(out, x.detach() * w.detach() + b.detach(), f"{SCALE}.apply(x, w, b)", "wrong-forward",
                    "forward returns x * w + b.")
    g = c.randn(*shape, seed=seed + 7, requires_grad=False)
    # a copy of g: a backward that writes into grad_output is the same-shapes test's rule (debugging/kept.py)
    got = c.backward_grads(out, [x, w, b], g.clone(), what=f"{SCALE}.backward", names=SCALE_INPUTS)
    leaves = [t.detach().requires_grad_(True) for t in (x, w, b)]
    expected = torch.autograd.grad(leaves[0] * leaves[1] + leaves[2], leaves, g)
    return (x, w, b), g, got, expected


def _scale_cases(Fn, cases, broadcast: bool) -> None:
    c.require_function(Fn, SCALE)
    c.require_self_contained(Fn, SCALE)
    def one_case(shapes, seed) -> None:
        inputs, g, got, expected = _scale_grads(Fn, shapes, seed)
        for name, t, grad, ref in zip(SCALE_INPUTS, inputs, got, expected):
            what = f"the gradient of {name} (x, w, b of shapes {', '.join(map(fmt, shapes))})"
            if grad is None:
                c.fail("missing-gradient", f"{what}: {name} requires grad but got none. Return its gradient.")
            c.require_shape(grad, t.shape, what, "wrong-grad-shape")
            if not broadcast:
                c.require_float64_kept(grad, ref, what, "backward")
            right = bool(torch.allclose(grad, ref, rtol=1e-7, atol=1e-9)) or c.tolerated(grad, ref)
            if not right:
                _name_the_broken_rule(Fn, shapes, seed, name, t, grad, ref, g, what, broadcast)
            c.require_close(grad, ref, what, "wrong-derivative", SCALE_HINT, rtol=1e-7, atol=1e-9)
    # float32's rounding (a backward computing in float32) is the same-shapes test's rule: one mistake, one test
    with c.precision_elsewhere() if broadcast else contextlib.nullcontext():
        c.each(cases, lambda case: one_case(*case))


def _ignores_grad_output(Fn, shapes, seed, index) -> bool:
    """Whether the gradient of input `index` comes out the same for two different grad_outputs (it ignores them)."""
    grads = []
    for k in (11, 12):
        x, w, b = (c.randn(*s, seed=seed + 100 * j) for j, s in enumerate(shapes))
        out = c.call(Fn.apply, x, w, b, what=f"{SCALE}.apply(x, w, b)", names=SCALE_INPUTS)
        g = c.randn(*out.shape, seed=seed + k, requires_grad=False) * k
        grads.append(c.backward_grads(out, [x, w, b], g.clone(), what=f"{SCALE}.backward", names=SCALE_INPUTS)[index])
    return all(isinstance(t, torch.Tensor) for t in grads) and bool(torch.allclose(grads[0], grads[1]))


def _name_the_broken_rule(Fn, shapes, seed, name, t, grad, ref, g, what, broadcast) -> None:
    """Name the rule a wrong gradient breaks: grad_output ignored, or the un-broadcast (only when the same Function is
    right with every input of the output's shape), or the derivative itself."""
    index = SCALE_INPUTS.index(name)
    worst = (grad - ref).abs().max().item()
    if _ignores_grad_output(Fn, shapes, seed, index):
        c.fail("ignores-grad-output",
               f"{what} is wrong (largest error {worst:.3g}), and it is the same whatever grad_output is: backward "
               "must scale each input's gradient by grad_output (the chain rule), entry by entry.")
    if broadcast and tuple(t.shape) != tuple(g.shape):
        full = tuple(g.shape)
        _, _, got, expected = _scale_grads(Fn, (full, full, full), seed + 1000)
        if all(isinstance(a, torch.Tensor) and bool(torch.allclose(a, e, rtol=1e-7, atol=1e-9))
               for a, e in zip(got, expected)):
            c.fail("broadcast-gradient",
                   f"{what} is wrong (largest error {worst:.3g}): {name} is broadcast against an output of shape "
                   f"{fmt(g.shape)}, and the same backward is right when every input has the output's shape. "
                   "Compare, for this input, what backward sums and what it multiplies. " + SCALE_HINT)


def scale_broadcast(ScaleShift, cases=BROADCAST_CASES[:1]) -> None:
    """Value and the three gradients through autograd when w broadcasts against x (and, in the table, x and b
    too), against autograd's own gradients of x * w + b."""
    _scale_cases(ScaleShift, cases, broadcast=True)


def scale_same_shapes(ScaleShift, cases=SAME_CASES[:1]) -> None:
    """The same when x, w and b all have the output's shape (the case the broken Function already gets right: a
    fix must keep it, and the point counts once the report's symptom is gone); and what else the broken Function
    keeps (debugging/kept.py): x and w kept where the version counter guards them, grad_output left alone."""
    _scale_cases(ScaleShift, cases, broadcast=False)
    inputs = lambda seed: [c.randn(*s, seed=seed + k) for k, s in enumerate(((3, 4), (4,), (4,)))]
    require_inputs_kept(ScaleShift, SCALE, inputs(880), {"x": 0, "w": 1, "the output": OUTPUT}, SCALE_INPUTS)
    require_grad_output_alone(ScaleShift, SCALE, lambda: [inputs(890), inputs(895)], SCALE_INPUTS)
    scale_symptom_gone(ScaleShift)   # the broken Function already keeps this rule: its point stands for the fix


def scale_symptom_gone(ScaleShift) -> None:
    """The report's case (x of shape (4, 3), w and b of shape (3,)): w's gradient is right."""
    _, _, got, expected = _scale_grads(ScaleShift, BROADCAST_SHAPES[0], 900)
    if not (isinstance(got[1], torch.Tensor) and got[1].shape == expected[1].shape
            and (bool(torch.allclose(got[1], expected[1], rtol=1e-7, atol=1e-9))
                 or c.off_by_float32(got[1], expected[1]))):   # float32's rounding is not the report's symptom
        symptom_remains(SCALE, "w of shape (3,) against x of shape (4, 3) still gets a wrong gradient")
