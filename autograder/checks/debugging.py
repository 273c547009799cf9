"""Checks for notebook 15 (debugging a broken Function): five Functions that are wrong the way real ones are, each
to be fixed and its cause named.

Each exercise is graded twice over, on separate points: the cause the learner names (`CAUSE_<Exercise>`, one key of
`CAUSES`) and the fixed Function, whose tests each check one rule against a reference computed here:

- `ScaleShift.apply(x, w, b)` = x * w + b for broadcastable x, w, b (the broken one sums w's gradient before the
  product it belongs to is formed, which is only wrong when w broadcasts);
- `Sinc.apply(x)` = sin(x) / x, 1 at x = 0, with gradient (x cos x - sin x) / x**2 and exactly 0 at x = 0 (the broken
  one returns 0 / 0 = NaN there);
- `LinearMap.apply(x, w)` = x @ w.T, whose backward either raises autograd's in-place error or returns the gradient
  of the values forward saw, when x or w is changed in place between forward and backward (the broken one saves
  `.data`, which the version counter does not follow, and is silently wrong);
- `Gaussian.apply(x)` = exp(-x**2), whose output is freed as soon as its caller drops it (the broken one keeps the
  output as a ctx attribute: a reference cycle only the garbage collector breaks).
- `DivideBy.apply(x, t)` = x / t, for t a Python number or a 0-d tensor that may be learned (the broken one returns
  a gradient for t even when t is a number, where it must return None).

Each check takes `cases=`: its default is the visible test's small case, the hidden tests pass the module's tables.
The right causes are not here: they live in solutions/debugging_key.json (`answer_key`), which only the judge
reads, as notebook 00's decisions do. Everything but the memory test is computed in the judge; whether the output is
freed is a fact only the learner's process can see (`dropped_output`, a probe).
"""

from __future__ import annotations

import gc
import json
import weakref

import torch

from autograder import paths
from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule

# key -> what it means. Every exercise's cause is one of them; most are not the cause of any of the four.
CAUSES = {
    "not-summed": "a broadcast input's gradient is returned with the output's shape, never summed back to the input's",
    "sum-before-multiply": "a broadcast input's gradient is summed down to its shape before the product it is the sum "
                           "of has been formed",
    "wrong-derivative": "the derivative formula is wrong wherever it is evaluated",
    "ignores-grad-output": "backward does not multiply by grad_output",
    "float32-check": "nothing is wrong with the Function: the check ran in float32, where finite differences are noise",
    "zero-over-zero": "backward evaluates a quotient that is 0 / 0 at a point where forward was guarded",
    "overflow": "an intermediate of backward overflows to inf for large inputs",
    "missing-none": "backward returns a gradient for an input that cannot have one (a Python number)",
    "saved-without-version": "a tensor backward reads was saved through an alias the version counter does not follow, "
                             "so an in-place change before backward goes unnoticed",
    "missing-mark-dirty": "forward changes an input in place without telling autograd (ctx.mark_dirty)",
    "reference-cycle": "the output refers to itself through its own node (a tensor kept as a ctx attribute), so "
                       "dropping it frees nothing until the garbage collector runs",
    "saves-too-much": "forward saves more for backward than backward needs, so every call keeps extra memory",
}

EXERCISES = ("ScaleShift", "Sinc", "LinearMap", "Gaussian", "DivideBy")

# With the instructor's sources, not in the package (see decisions.KEY_PATH): a protected path while grading.
KEY_PATH = paths.DEBUGGING_KEY

LISTED, RIGHT = "listed", "right"
CAUSE_CASES = (LISTED, RIGHT)


def answer_key() -> dict:
    """exercise -> {"right": key, "look": where to look (without naming the cause)}. Read when a hidden test needs
    it, never on import (the learner's process imports this module but never calls this)."""
    return json.loads(KEY_PATH.read_text(encoding="utf-8"))["causes"]


def _normalise(value):
    return value.strip().strip("'\"").strip().lower() if isinstance(value, str) else value


def cause(exercise: str, chosen, cases=(LISTED,)) -> None:
    """Visible: `chosen` is one of the keys of CAUSES (it says nothing about whether it is the right one). With
    RIGHT among the cases (the hidden test): it is the cause of that exercise's broken Function."""
    name = f"CAUSE_{exercise}"
    if chosen is None or chosen is Ellipsis:
        c.fail("no-cause", f"`{name}` is not named yet: set it to one of the keys of CAUSES, as a string.")
    if _normalise(chosen) not in CAUSES:
        c.fail("unknown-cause", f"`{name}` is {chosen!r}, which is not a key of CAUSES. Use one of: "
                                f"{', '.join(map(repr, CAUSES))} (a string, exactly as written).")
    if RIGHT not in cases:
        return
    key = answer_key()[exercise]
    picked = _normalise(chosen)
    if picked != key["right"]:
        c.fail("wrong-cause", f"`{name}` = {picked!r} ({CAUSES[picked]}) is not what breaks the broken {exercise}. "
                              f"{key['look']}")


# ------------------------------------------------------------------------------------------ ScaleShift

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


def _fmt(shape) -> str:
    return str(tuple(shape)).replace(",)", ")")


def _scale_grads(Fn, shapes, seed):
    """(inputs, grad_output, the learner's gradients through autograd, the reference gradients)."""
    x, w, b = (c.randn(*s, seed=seed + 100 * k) for k, s in enumerate(shapes))
    out = c.call(Fn.apply, x, w, b, what=f"{SCALE}.apply(x, w, b)", names=SCALE_INPUTS)
    shape = torch.broadcast_shapes(*shapes)
    c.require_shape(out, shape, f"{SCALE}.apply(x, w, b) for shapes {', '.join(map(_fmt, shapes))}")
    c.require_close(out, x.detach() * w.detach() + b.detach(), f"{SCALE}.apply(x, w, b)", "wrong-forward",
                    "forward returns x * w + b.")
    g = c.randn(*shape, seed=seed + 7, requires_grad=False)
    got = c.backward_grads(out, [x, w, b], g, what=f"{SCALE}.backward", names=SCALE_INPUTS)
    leaves = [t.detach().requires_grad_(True) for t in (x, w, b)]
    expected = torch.autograd.grad(leaves[0] * leaves[1] + leaves[2], leaves, g)
    return (x, w, b), g, got, expected


def _scale_cases(Fn, cases, broadcast: bool) -> None:
    c.require_function(Fn, SCALE)
    c.require_self_contained(Fn, SCALE)
    for shapes, seed in cases:
        inputs, g, got, expected = _scale_grads(Fn, shapes, seed)
        for name, t, grad, ref in zip(SCALE_INPUTS, inputs, got, expected):
            what = f"the gradient of {name} (x, w, b of shapes {', '.join(map(_fmt, shapes))})"
            if grad is None:
                c.fail("missing-gradient", f"{what}: {name} requires grad but got none. Return its gradient.")
            c.require_shape(grad, t.shape, what, "wrong-grad-shape")
            right = bool(torch.allclose(grad, ref, rtol=1e-7, atol=1e-9))
            if not right and broadcast and tuple(t.shape) != tuple(g.shape):
                c.fail("broadcast-gradient",
                       f"{what} is wrong (largest error {(grad - ref).abs().max().item():.3g}): {name} is broadcast "
                       f"against an output of shape {_fmt(g.shape)}, and its gradient is only right when no input "
                       "broadcasts. Compare, for this input, what backward sums and what it multiplies. " + SCALE_HINT)
            c.require_close(grad, ref, what, "wrong-derivative", SCALE_HINT, rtol=1e-7, atol=1e-9)


def scale_broadcast(ScaleShift, cases=BROADCAST_CASES[:1]) -> None:
    """Value and the three gradients through autograd when w broadcasts against x (and, in the table, x and b
    too), against autograd's own gradients of x * w + b."""
    _scale_cases(ScaleShift, cases, broadcast=True)


def scale_same_shapes(ScaleShift, cases=SAME_CASES[:1]) -> None:
    """The same when x, w and b all have the output's shape (the case the broken Function already gets right: a
    fix must keep it)."""
    _scale_cases(ScaleShift, cases, broadcast=False)


# ------------------------------------------------------------------------------------------------ Sinc

SINC = "Sinc"
SINC_HINT = ("d/dx sin(x)/x = (x cos x - sin x) / x**2 away from 0, and its limit at x = 0 is 0; sinc itself is 1 at "
             "0. Nothing is added to x.")
ZERO_HINT = ("Where x is exactly 0, return 0 for the gradient: select it with torch.where(x == 0, 0.0, ...) on the "
             "result (inside backward the 0 / 0 it computes there is never selected, and nothing differentiates "
             "it), and keep the formula everywhere else.")
# (shape, dtype, seed, how many zeros): some entries set to exactly 0
ZERO_CASES = tuple((shape, torch.float32 if (k + seed) % 2 else torch.float64, 200 + 10 * seed + k, zeros)
                   for seed in (0, 1) for k, (shape, zeros) in enumerate((((6,), 1), ((3, 4), 3), ((), 1), ((2, 5), 10),
                                                                          ((7,), 2))))
# (values of x): float64 gradcheck away from 0, small |x| included
AWAY_CASES = ((0.5, -1.5, 3.0, 7.0), (1e-3, -2e-3, 0.1, -0.3), (1e-2, 2.0, -4.0, 10.0), (-6.0, 2.5, 0.05, -0.02))


def _sinc_reference(x):
    """sinc and its derivative in float64, series near 0 (no cancellation), returned in x's dtype."""
    x64 = x.detach().to(torch.float64)
    small = x64.abs() < 1e-2
    safe = torch.where(small, 1.0, x64)
    value = torch.where(small, 1 - x64 ** 2 / 6 + x64 ** 4 / 120, torch.sin(safe) / safe)
    slope = torch.where(small, -x64 / 3 + x64 ** 3 / 30, (safe * torch.cos(safe) - torch.sin(safe)) / safe ** 2)
    return value.to(x.dtype), slope.to(x.dtype)


def _zero_input(shape, dtype, seed, zeros):
    x = c.randn(*shape, seed=seed, requires_grad=False, away_from=(0.0,), margin=0.05, scale=3.0)
    flat = x.reshape(-1)
    flat[torch.arange(flat.numel()) < min(zeros, flat.numel())] = 0.0
    return x.to(dtype).requires_grad_(True)


def _tolerance(dtype):
    return (1e-9, 1e-12) if dtype == torch.float64 else (1e-4, 1e-5)


def sinc_zero(Sinc, cases=(((5,), torch.float64, 200, 2),)) -> None:
    """Inputs with exact zeros: value 1 there, gradient exactly 0 there (never NaN or inf), and about right elsewhere
    (to 1e-3: exactness away from 0 is `sinc_away`'s rule), with a random grad_output. Visible: float64; ZERO_CASES: float32 too, other shapes, every entry zero."""
    c.require_function(Sinc, SINC)
    c.require_self_contained(Sinc, SINC)
    for shape, dtype, seed, zeros in cases:
        x = _zero_input(shape, dtype, seed, zeros)
        at = x.detach() == 0
        what = f"{SINC}.apply(x) for x of shape {_fmt(x.shape)} ({str(dtype)[6:]}) with {int(at.sum())} zero(s)"
        y = c.call(Sinc.apply, x, what=what)
        value, slope = _sinc_reference(x)
        rtol, atol = _tolerance(dtype)
        c.require_close(y, value, what, "wrong-forward", "sinc is sin(x) / x, and 1 at x = 0.", rtol=rtol, atol=atol)
        g = c.randn(*shape, seed=seed + 1, requires_grad=False, dtype=dtype)
        (grad,) = c.backward_grads(y, [x], g, what=f"{SINC}.backward")
        if grad is None:
            c.fail("no-graph", f"{what}: x received no gradient. Return the gradient from backward.")
        c.require_shape(grad, x.shape, f"the gradient of {what}", "wrong-grad-shape")
        if not bool(torch.isfinite(grad[at]).all()):
            c.fail("nan-at-zero", f"the gradient of {what} is {grad[at].tolist()[:3]} where x is exactly 0: one such "
                                  "NaN makes every weight NaN after the next optimizer step. " + ZERO_HINT)
        if not bool((grad[at] == 0).all()):
            c.fail("nonzero-at-zero", f"the gradient of {what} is {grad[at].tolist()[:3]} where x is exactly 0, but "
                                      "the derivative of sinc there is exactly 0 (sinc is even). " + ZERO_HINT)
        # Elsewhere only coarsely: the exact derivative away from 0 is the other test's rule (one mistake, one test).
        c.require_close(torch.where(at, 0.0, grad), torch.where(at, 0.0, g * slope),
                        f"the gradient of {what}, where x is not 0", "wrong-derivative", SINC_HINT,
                        rtol=1e-3, atol=1e-6)


def sinc_away(Sinc, cases=AWAY_CASES[:1]) -> None:
    """float64 gradcheck away from 0, |x| down to 1e-3 (the broken Function already passes it: a fix that adds an
    eps to x or clamps it fails it)."""
    c.require_function(Sinc, SINC)
    for values in cases:
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        what = f"{SINC}.apply(x) for x = {list(values)}"
        y = c.call(Sinc.apply, x, what=what)
        value, _ = _sinc_reference(x)
        c.require_close(y, value, what, "wrong-forward", "sinc is sin(x) / x: nothing is added to x, nothing clamped.",
                        rtol=1e-9, atol=1e-12)
        c.gradcheck(Sinc.apply, (x,), what, hint=SINC_HINT)


# -------------------------------------------------------------------------------------------- LinearMap

LINEAR = "LinearMap"
LINEAR_INPUTS = ("x", "w")
LINEAR_HINT = "the gradient of x @ w.T is grad_output @ w for x and grad_output.T @ x for w."
# (which input is changed in place, N, M, D, seed)
INPLACE_CASES = tuple((changed, n, m, d, 400 + 10 * seed + k) for seed in (0, 1)
                      for k, (changed, n, m, d) in enumerate((("w", 5, 2, 3), ("x", 5, 2, 3), ("w", 1, 4, 4),
                                                              ("x", 3, 3, 1), ("both", 4, 2, 5))))
LINEAR_VALUES_CASES = tuple((n, m, d, 500 + k) for k, (n, m, d) in enumerate(((5, 2, 3), (1, 1, 1), (4, 4, 4),
                                                                              (2, 6, 3))))

UNPROVOKED_RULES = (
    Rule("error-without-change", c.INPLACE,
         "{what} raised autograd's in-place error ({line}) although nothing was changed in place. The version counter "
         "of a tensor saved with ctx.save_for_backward raises only when that tensor has changed.",
         types=(RuntimeError,)),
) + c.engine_rules(LINEAR_INPUTS)


def _linear_inputs(n, m, d, seed):
    x, w = c.randn(n, d, seed=seed), c.randn(m, d, seed=seed + 1)
    return x, w, c.randn(n, m, seed=seed + 2, requires_grad=False)


def linear_inplace(LinearMap, cases=INPLACE_CASES[:1]) -> None:
    """x, w (non-leaves) changed in place between forward and backward, as an optimizer step or a ReLU_ does: backward
    raises autograd's in-place error, or returns the gradient of the values forward saw (a Function that saved
    copies). And with nothing changed, backward runs."""
    c.require_function(LinearMap, LINEAR)
    c.require_self_contained(LinearMap, LINEAR)
    for changed, n, m, d, seed in cases:
        leaf_x, leaf_w, g = _linear_inputs(n, m, d, seed)
        x, w = leaf_x * 1.0, leaf_w * 1.0   # non-leaves we may change in place
        what = f"{LINEAR}.apply(x, w) for x of shape {_fmt(x.shape)}, w of shape {_fmt(w.shape)}"
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
            for name, grad, ref in zip(LINEAR_INPUTS, grads, expected):
                if not bool(torch.allclose(grad, ref, rtol=1e-7, atol=1e-9)):
                    c.fail("not-saved-for-backward",
                           f"{what}: {'x and w were' if changed == 'both' else changed + ' was'} changed in place "
                           f"after forward, and backward returned a gradient of {name} computed from the changed "
                           "values, without an error: the version counter never saw the tensors backward read. Find "
                           "out what forward saved, and whether a change to x or w reaches it.")
        _linear_unprovoked(LinearMap, n, m, d, seed + 5)


def _linear_unprovoked(LinearMap, n, m, d, seed) -> None:
    leaf_x, leaf_w, g = _linear_inputs(n, m, d, seed)
    out = c.call(LinearMap.apply, leaf_x * 1.0, leaf_w * 1.0, what=f"{LINEAR}.apply(x, w)", names=LINEAR_INPUTS)
    with c.explained(f"{LINEAR}.backward (x and w results of other operations, left alone)", UNPROVOKED_RULES):
        torch.autograd.grad(out, [leaf_x, leaf_w], g)


def linear_values(LinearMap, cases=LINEAR_VALUES_CASES[:1]) -> None:
    """Value and both gradients with a random grad_output, nothing changed in place."""
    c.require_function(LinearMap, LINEAR)
    for n, m, d, seed in cases:
        x, w, g = _linear_inputs(n, m, d, seed)
        what = f"{LINEAR}.apply(x, w) for x of shape {_fmt(x.shape)}, w of shape {_fmt(w.shape)}"
        out = c.call(LinearMap.apply, x, w, what=what, names=LINEAR_INPUTS)
        c.require_close(out, x.detach() @ w.detach().T, what, "wrong-forward", "forward returns x @ w.T.")
        grads = c.backward_grads(out, [x, w], g, what=f"{LINEAR}.backward", names=LINEAR_INPUTS)
        for name, grad, ref in zip(LINEAR_INPUTS, grads, (g @ w.detach(), g.T @ x.detach())):
            if grad is None:
                c.fail("missing-gradient", f"{what}: {name} requires grad but got none. Return its gradient.")
            c.require_close(grad, ref, f"the gradient of {name} ({what})", "wrong-derivative", LINEAR_HINT)


# --------------------------------------------------------------------------------------------- Gaussian

GAUSSIAN = "Gaussian"
GAUSSIAN_HINT = "the derivative of exp(-x**2) is -2 x exp(-x**2): -2 * x * output, times grad_output."
FREED_CASES = (((4,), 600), ((2, 3), 601), ((), 602), ((1000,), 603))
GAUSSIAN_VALUES_CASES = (((5,), 610), ((3, 4), 611), ((), 612), ((2, 1, 3), 613))

_GC_ENABLED, _GC_DISABLE, _GC_ENABLE, _GC_COLLECT = gc.isenabled, gc.disable, gc.enable, gc.collect
_WEAKREF = weakref.ref


@c.probe
def dropped_output(Fn, x) -> dict:
    """In the learner's process, with the garbage collector paused: is out = Fn.apply(x) freed as soon as its
    last reference is dropped, before any backward ("freed") and after one ("freed_after_backward"); and, if not,
    once the collector runs ("collected")."""
    was_on = _GC_ENABLED()
    _GC_DISABLE()
    try:
        leaf = x.detach().requires_grad_(True)
        out = behaviour.function_apply(Fn, leaf)
        if not isinstance(out, torch.Tensor):
            return {"output": None}
        facts = {"output": out.detach().clone()}
        ref = _WEAKREF(out)
        del out
        facts["freed"] = ref() is None
        out = behaviour.function_apply(Fn, leaf)
        torch.autograd.grad(out.sum(), [leaf])
        ref_after = _WEAKREF(out)
        del out
        facts["freed_after_backward"] = ref_after() is None
        _GC_COLLECT()
        facts["collected"] = ref() is None and ref_after() is None
        return facts
    finally:
        if was_on:
            _GC_ENABLE()


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


# --------------------------------------------------------------------------------------------- DivideBy

DIVIDE = "DivideBy"
DIVIDE_INPUTS = ("x", "t")
DIVIDE_HINT = ("the gradient of x / t is grad_output / t for x and -(grad_output * x).sum() / t**2 for a tensor t "
               "(a 0-d tensor: the sum is over every entry of x).")
# (x's shape, t: a Python float or int, seed)
NUMBER_CASES = (((4,), 2.0, 700), ((2, 3), 0.5, 701), ((3,), 3, 702), ((), -1.5, 703), ((2, 2), 4, 704),
                ((5,), 1, 705))
# (x's shape, t's value, does x require grad, does t, seed): t a 0-d tensor
TENSOR_CASES = (((4,), 2.0, True, True, 710), ((2, 3), 0.5, False, True, 711), ((3,), -1.5, True, False, 712),
                ((), 3.0, False, True, 713), ((2, 2), 1.25, True, True, 714))


def divide_number(DivideBy, cases=NUMBER_CASES[:1]) -> None:
    """t a Python number (a float, and in the table an int too): the value and x's gradient, and no error."""
    c.require_function(DivideBy, DIVIDE)
    c.require_self_contained(DivideBy, DIVIDE)
    for shape, t, seed in cases:
        x = c.randn(*shape, seed=seed)
        what = f"{DIVIDE}.apply(x, {t!r}) for x of shape {_fmt(x.shape)} (t a Python {type(t).__name__})"
        out = c.call(DivideBy.apply, x, t, what=what, names=DIVIDE_INPUTS)
        c.require_close(out, x.detach() / t, what, "wrong-forward", "forward returns x / t.")
        g = c.randn(*shape, seed=seed + 1, requires_grad=False)
        (grad,) = c.backward_grads(out, [x], g, what=f"{DIVIDE}.backward, t a Python {type(t).__name__}",
                                   names=DIVIDE_INPUTS)
        if grad is None:
            c.fail("missing-gradient", f"{what}: x requires grad but got none. Return its gradient.")
        c.require_close(grad, g / t, f"the gradient of x ({what})", "wrong-derivative", DIVIDE_HINT)


def divide_tensor(DivideBy, cases=TENSOR_CASES[:1]) -> None:
    """t a 0-d tensor (a learned temperature): the gradient of every input that requires grad (in the table: t alone,
    x alone, both)."""
    c.require_function(DivideBy, DIVIDE)
    for shape, value, x_grad, t_grad, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=x_grad)
        t = torch.tensor(value, dtype=torch.float64, requires_grad=t_grad)
        needs = [name for name, on in (("x", x_grad), ("t", t_grad)) if on]
        what = (f"{DIVIDE}.apply(x, t) for x of shape {_fmt(x.shape)} and a 0-d tensor t, "
                f"{' and '.join(needs)} requiring grad")
        out = c.call(DivideBy.apply, x, t, what=what, names=DIVIDE_INPUTS)
        c.require_close(out, x.detach() / t.detach(), what, "wrong-forward", "forward returns x / t.")
        g = c.randn(*shape, seed=seed + 1, requires_grad=False)
        inputs = [v for v, on in ((x, x_grad), (t, t_grad)) if on]
        grads = c.backward_grads(out, inputs, g, what=f"{DIVIDE}.backward, t a tensor", names=DIVIDE_INPUTS)
        expected = {"x": g / t.detach(), "t": -(g * x.detach()).sum() / t.detach() ** 2}
        for name, grad in zip(needs, grads):
            if grad is None:
                c.fail("missing-gradient",
                       f"{what}: {name} requires grad (a temperature that is learned) but got no gradient: "
                       f"backward returned None for it. Return None only where the input cannot have a gradient.")
            c.require_close(grad, expected[name], f"the gradient of {name} ({what})", "wrong-derivative",
                            DIVIDE_HINT)
