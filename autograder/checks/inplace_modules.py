"""Checks for notebook 12 (in-place Functions, and Functions inside modules).

- `ScaleInplace.apply(x, alpha)` multiplies x in place by the float alpha (`x.mul_(alpha)`), declares it with
  `ctx.mark_dirty(x)` and returns x itself; backward returns `(grad_output * alpha, None)`.
- `ClampInplace.apply(x, low, high)` clamps x in place to [low, high] (`x.clamp_(low, high)`), marks it dirty,
  returns x and saves it: after the call x holds the *output*, so backward reads its mask from the saved output
  (gradient 1 strictly inside (low, high), 0 where clamped); backward returns `(grad, None, None)`.
- `LinearFunction.apply(x, weight, bias)` is `x @ weight.T + bias` for x (N, in), weight (out, in), bias (out,)
  or None; backward returns a gradient of each input's exact shape, None for a missing bias, and None for
  every input whose `ctx.needs_input_grad` entry is False.
- `Linear(in_features, out_features, bias=True)` is an nn.Module with nn.Parameters `weight` (out, in) and
  `bias` (out,) (no bias parameter when bias=False) whose forward calls `LinearFunction.apply`.

Every check observes behaviour the judge computes: when grading, the learner's names are proxies here
(autograder/engine/sandbox/proxy.py). In-place calls cross like any other: an input the learner's Function changed and
returned with `ctx.mark_dirty` comes back as that very input, its version counter moved and its history ending at
the call's node; an input the judge changes after the call is changed there before backward. So the in-place
checks compare values, gradients, version counters and autograd's own errors, never a node's name.

A module is built through the proxy too (`Linear(3, 2)` is a handle to the learner's object): its parameters are
read as tensors, `get_parameter` says whether each is registered as one, and `load_state_dict` (strict) both
checks the parameter names and puts the judge's weights in. Gradients of the module's parameters and SGD steps
stay in the learner's process, so `linear_forward` and `linear_trains` read them through the probe
`linear_facts`; where the learner's LinearFunction is wrong, that probe runs the module on a reference
LinearFunction instead, so one mistake costs points once (in LinearFunction's tests) and the module's tests judge
the module's own code.
"""

from __future__ import annotations

import re

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule, explained

INPLACE_ERROR = "modified by an inplace operation"


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


# ------------------------------------------------------------------------ both in-place exercises

# What autograd says about an in-place forward, in the learner's words.
INPLACE_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("dirty-not-returned", "marked as dirty during the forward method were not returned",
         "{what}: forward marked x dirty but returned another tensor (autograd: \"Some elements marked as dirty "
         "during the forward method were not returned as output\"). Return x itself after the in-place change: "
         "not a new tensor, not x.clone(), not a view of x.", types=(RuntimeError,)),
    Rule("saved-a-float", "save_for_backward can only save variables",
         "{what}: ctx.save_for_backward only takes tensors, and the bounds and scales of this notebook are "
         "Python floats: keep them as plain attributes on ctx (ctx.alpha = alpha).", types=(TypeError,)),
    Rule("leaf-changed", "a leaf Variable that requires grad",
         "{what}: {line}", types=(RuntimeError,)),
)


def _require_changed_in_place(y, x, before, expected, version, what, fix) -> None:
    """y must be x itself, x must now hold `expected`, and x's version counter must have moved."""
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor (x itself), got {type(y).__name__}.")
    unchanged = tuple(x.shape) == tuple(before.shape) and bool(torch.equal(x.detach(), before))
    if y is not x:
        if unchanged and not torch.equal(before, expected):
            c.fail("returns-new-tensor",
                   f"{what} left x unchanged and returned a new tensor: this Function works in place. Change x "
                   f"itself with {fix} (not on a clone), call ctx.mark_dirty(x), and return x.")
        c.fail("no-mark-dirty",
               f"{what} changed x in place but did not tell autograd: call ctx.mark_dirty(x) in forward and return "
               "x itself. Without it autograd hands back an alias of x and x keeps its old history, so anything "
               "computed from x afterwards gets a gradient that skips your Function, silently.")
    c.require_close(x, expected, f"x after {what}", "wrong-forward", f"forward must change x in place: {fix}.",
                    rtol=1e-12, atol=1e-14)
    if x._version == version and not torch.equal(before, expected):
        c.fail("version-counter-missed",
               f"{what} changed x without moving its version counter (x._version is still {version}): change it "
               f"with {fix}, an in-place op autograd sees, not through x.data.")


def _inputs_with_history(shape, seed, dtype):
    """(leaf, x) pairs: x computed from the leaf, once by a plain copy and once two operations deeper, as in the
    middle of a network (by ops that save no tensor: one that saved x, such as tanh, would rightly refuse the
    change, see scale_version_counter)."""
    leaf = c.randn(*shape, seed=seed, dtype=dtype)
    deep = c.randn(*shape, seed=seed + 50, dtype=dtype)
    return [("x = leaf * 1.0", leaf, lambda: leaf * 1.0, lambda t: torch.ones_like(t)),
            ("x = 2 * leaf - 1", deep, lambda: 2 * deep - 1, lambda t: 2 * torch.ones_like(t))]


def _grad_through(leaf, x, weight, what, rules):
    """The gradient of (x * weight).sum() with respect to the leaf, x used after the in-place call."""
    with explained(what, rules):
        (grad,) = c.backward_grads((x * weight).sum(), [leaf], what=what)
    return grad


def _saved_then_changed(change, what) -> None:
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
            if INPLACE_ERROR in str(error):
                return
            raise
    c.fail("version-counter-missed",
           f"{what}: x.sin() saved x for its backward, then your Function changed x, and autograd did not notice, "
           "so that backward silently used the changed x. Change x with an in-place op the version counter sees "
           "(x.mul_, x.clamp_; not through x.data) and mark it with ctx.mark_dirty(x).")


# ------------------------------------------------------------------------------------------ ScaleInplace

SCALE = "ScaleInplace"
SCALE_SHAPES = [(), (4,), (2, 3), (2, 3, 4)]
SCALE_HINT = "backward returns (grad_output * alpha, None): the scaling's derivative is alpha, times grad_output."

SCALE_RULES = INPLACE_RULES + (
    Rule("grad-for-alpha", r"different than None at position 2",
         "{what}: backward returned a gradient for alpha, which is a Python float, not a tensor: return None for "
         "alpha, i.e. `return grad_output * ctx.alpha, None`.", types=(RuntimeError,)),
    Rule("grad-for-alpha", mistake="missing-none",
         message="{what}: backward returned a gradient for alpha, which is a Python float, not a tensor: return "
                 "None for alpha, i.e. `return grad_output * ctx.alpha, None`."),
) + c.ENGINE_RULES

# (shape, alpha, seed, dtype)
SCALE_VALUE_CASES = [((4,), 2.5, 0, torch.float64)]
SCALE_VALUE_TABLE = [(shape, alpha, 10 + k, torch.float64) for k, (shape, alpha) in
                     enumerate(zip(SCALE_SHAPES, (-1.5, 0.25, 3.0, -0.75)))] + [((3, 2), 1.75, 20, torch.float32)]


def _scale(ScaleInplace, x, alpha, what):
    """ScaleInplace.apply(x, alpha), which is meant to change x (so not common.call, which forbids that)."""
    version, before = x._version, x.detach().clone()
    with explained(what, SCALE_RULES):
        y = ScaleInplace.apply(x, alpha)
    _require_changed_in_place(y, x, before, alpha * before, version, what, "x.mul_(alpha)")
    return y


def _require_scale_grad(grad, weight, alpha, what) -> None:
    if grad is None:
        c.fail("no-gradient", f"{what}: the input got no gradient: backward must return grad_output * alpha for x.")
    if isinstance(grad, torch.Tensor) and grad.shape == weight.shape:
        right = bool(torch.allclose(grad, alpha * weight))
        if bool(torch.allclose(grad, alpha * torch.ones_like(weight))) and not right:
            c.fail("ignores-grad-output",
                   f"{what}: backward ignores grad_output: it returned alpha everywhere. It receives dLoss/dy and "
                   "must return grad_output * alpha.")
        if bool(torch.allclose(grad, weight)) and not right:
            c.fail("forgets-alpha",
                   f"{what}: backward returned grad_output unchanged: the scaling's derivative is alpha, so return "
                   "grad_output * alpha (keep alpha on ctx: ctx.alpha = alpha).")
    c.require_close(grad, alpha * weight, f"the gradient through {what}", "wrong-derivative", SCALE_HINT,
                    rtol=1e-10, atol=1e-12)


def scale_values(ScaleInplace, cases=SCALE_VALUE_CASES) -> None:
    """x computed from a leaf (a plain copy, and tanh deeper in a graph) is scaled in place: x itself is returned,
    holds alpha * x, its version counter moved, and the gradient of a loss computed from x afterwards includes
    the scaling. Visible: one (4,) float64 case; SCALE_VALUE_TABLE: more shapes, alphas and float32."""
    c.require_function(ScaleInplace, SCALE)
    for shape, alpha, seed, dtype in cases:
        for how, leaf, make_x, local in _inputs_with_history(shape, seed, dtype):
            what = f"{SCALE}.apply(x, {alpha}) for {how} of shape {shape} ({_dtype_name(dtype)})"
            x = make_x()
            _scale(ScaleInplace, x, alpha, what)
            weight = c.randn(*shape, seed=seed + 100, requires_grad=False, dtype=dtype)
            grad = _grad_through(leaf, x, weight, f"{SCALE}.backward", SCALE_RULES)
            _require_scale_grad(grad, weight * local(leaf.detach()), alpha, what)


SCALE_VERSION_CASES = ("saved-by-sin",)
SCALE_VERSION_TABLE = ("saved-by-sin", "changed-after", "no-grad")


def _scale_in_place(ScaleInplace, x, alpha, what) -> None:
    """ScaleInplace.apply(x, alpha) must leave alpha * x in x with its version counter moved; what it returns
    (x itself, marked dirty) is scale_values' rule, and the gradient scale_values' and scale_chain's."""
    version, before = x._version, x.detach().clone()
    with explained(what, SCALE_RULES):
        ScaleInplace.apply(x, alpha)
    if bool(torch.equal(x.detach(), before)):
        c.fail("returns-new-tensor", f"{what} left x unchanged: this Function works in place, so change x itself "
                                     "(not a clone of it).")
    c.require_close(x, alpha * before, f"x after {what}", "wrong-forward", "forward must scale x itself by alpha.",
                    rtol=1e-12, atol=1e-14)
    if x._version == version:
        c.fail("version-counter-missed",
               f"{what} changed x without moving its version counter (x._version is still {version}): the change "
               "went through x.data and x was not marked dirty, so autograd cannot know x changed.")


def scale_version_counter(ScaleInplace, cases=SCALE_VERSION_CASES) -> None:
    """Visible: x saved by an earlier op (sin saves its input), then scaled in place: backward through sin must
    raise autograd's in-place error. SCALE_VERSION_TABLE adds x changed in place by the caller after the call
    (nothing of it was saved, so backward still works and includes both factors) and a tensor without gradient,
    scaled in place and returned itself."""
    c.require_function(ScaleInplace, SCALE)
    for case in cases:
        if case == "saved-by-sin":
            what = f"{SCALE}.apply(x, 2.0) after x.sin()"
            _saved_then_changed(lambda x: _scale_in_place(ScaleInplace, x, 2.0, what), what)
        elif case == "changed-after":
            leaf = c.randn(2, 3, seed=33)
            x = leaf * 1.0
            what = f"{SCALE}.apply(x, 3.0), then x.mul_(0.5) by the caller"
            with explained(what, SCALE_RULES):
                ScaleInplace.apply(x, 3.0)
            x.mul_(0.5)
            weight = c.randn(2, 3, seed=34, requires_grad=False)
            grad = _grad_through(leaf, x, weight, f"{SCALE}.backward", SCALE_RULES)
            # The same call left alone, with the caller's factor in grad_output: the gradient's own rule is
            # scale_values', so here only the caller's change must not matter to backward.
            leaf2 = c.randn(2, 3, seed=33)
            x2 = leaf2 * 1.0
            with explained(what, SCALE_RULES):
                ScaleInplace.apply(x2, 3.0)
            alone = _grad_through(leaf2, x2, 0.5 * weight, f"{SCALE}.backward", SCALE_RULES)
            c.require_close(grad, alone, f"the gradient through {what}", "version-counter-missed",
                            "it differs from the same call's gradient without the caller's change: backward must "
                            "not read x, which the caller may change after the call (alpha on ctx is all it needs).",
                            rtol=1e-10, atol=1e-12)
        elif case == "no-grad":
            x = c.randn(2, 3, seed=35, requires_grad=False)
            _scale_in_place(ScaleInplace, x, -0.5, f"{SCALE}.apply(x, -0.5) for x that does not require grad")


SCALE_CHAIN_CASES = ("twice",)
SCALE_CHAIN_TABLE = ("twice",) + tuple(zip(SCALE_SHAPES, ((0.5, -2.0), (-2.0, 1.25), (1.25, 3.0), (3.0, 0.5))))


def scale_chain(ScaleInplace, cases=SCALE_CHAIN_CASES) -> None:
    """Visible: x scaled twice (alphas 2 and -3) before one backward: each call's backward uses its own alpha
    (kept on ctx), so the gradient is what the two calls' own backwards give one after the other (2 * -3 *
    grad_output for a right backward: whether one call's gradient is right is scale_values' rule).
    SCALE_CHAIN_TABLE adds (shape, (alpha, alpha)) pairs."""
    c.require_function(ScaleInplace, SCALE)
    for k, case in enumerate(cases):
        shape, alphas = ((2, 3), (2.0, -3.0)) if case == "twice" else case
        _scale_twice(ScaleInplace, shape, alphas, 40 + 3 * k)


def _scale_once_grad(ScaleInplace, shape, alpha, grad_output, seed, what):
    """The learner's backward of one call on its own: the gradient of (ScaleInplace.apply(x, alpha) * grad_output)
    .sum() with respect to x's leaf."""
    leaf = c.randn(*shape, seed=seed)
    with explained(what, SCALE_RULES):
        y = ScaleInplace.apply(leaf * 1.0, alpha)
    return _grad_through(leaf, y, grad_output, f"{SCALE}.backward", SCALE_RULES)


def _scale_twice(ScaleInplace, shape, alphas, seed) -> None:
    first, second = alphas
    what = f"{SCALE}.apply(x, {first}) then {SCALE}.apply(x, {second})"
    leaf = c.randn(*shape, seed=seed)
    y = leaf * 1.0
    for alpha in alphas:  # through what each call returns (x itself for a right answer)
        with explained(f"{SCALE}.apply(x, {alpha})", SCALE_RULES):
            y = ScaleInplace.apply(y, alpha)
    weight = c.randn(*shape, seed=seed + 1, requires_grad=False)
    grad = _grad_through(leaf, y, weight, f"{SCALE}.apply twice", SCALE_RULES)

    def composed(a, b):  # the learner's own single-call backwards, second call's first
        inner = _scale_once_grad(ScaleInplace, shape, b, weight, seed + 2, f"{SCALE}.apply(x, {b})")
        return _scale_once_grad(ScaleInplace, shape, a, inner, seed + 2, f"{SCALE}.apply(x, {a})")

    expected = composed(first, second)
    close = isinstance(grad, torch.Tensor) and grad.shape == weight.shape
    if close and bool(torch.allclose(grad, expected, rtol=1e-10, atol=1e-12)):
        return
    if close and bool(torch.allclose(grad, composed(second, second), rtol=1e-10, atol=1e-12)):
        c.fail("alpha-shared-state",
               f"x scaled by {first} then by {second} before one backward, and the first call's backward used the "
               "second call's alpha. Keep alpha on ctx (ctx.alpha = alpha), not on the class or a global: ctx is "
               "new for every call.")
    c.require_close(grad, expected, f"the gradient through {what}", "alpha-shared-state",
                    "it differs from what the two calls' backwards give one after the other, each on its own: each "
                    "call's backward must use that call's own alpha (kept on ctx), whatever calls came after it.",
                    rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------------------ ClampInplace

CLAMP = "ClampInplace"
CLAMP_HINT = ("the gradient is grad_output where low < x < high and 0 where x was clamped; after x.clamp_ the "
              "input's old values are gone, so read the mask from the saved output.")

CLAMP_RULES = INPLACE_RULES + (
    Rule("grad-for-bound", r"different than None at position (?P<position>[23])",
         "{what}: backward returned a gradient for input {position}, a bound (low or high), which is a Python "
         "float: return None for each bound, `return grad, None, None`.", types=(RuntimeError,)),
    Rule("grad-for-bound", mistake="missing-none",
         message="{what}: backward returned a gradient for input {position}, a bound (low or high), which is a "
                 "Python float: return None for each bound, `return grad, None, None`."),
) + c.ENGINE_RULES


def _clamp_input(shape, low, high, seed, dtype):
    """Values spread over [2 low - high, 2 high - low], none within 1e-3 of a bound (where the mask is a choice)."""
    values = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype) * (high - low) + (low + high) / 2
    near = ((values - low).abs() < 1e-3) | ((values - high).abs() < 1e-3)
    return torch.where(near, values + 2e-3, values)


def _clamp(ClampInplace, x, low, high, what):
    version, before = x._version, x.detach().clone()
    with explained(what, CLAMP_RULES):
        y = ClampInplace.apply(x, low, high)
    _require_changed_in_place(y, x, before, before.clamp(low, high), version, what, "x.clamp_(low, high)")
    return y


def _clamp_in_place(ClampInplace, x, low, high, what):
    """ClampInplace.apply(x, low, high) must leave x clamped, its version counter moved; what it returns is
    clamp_values' rule (so the tests of the other rules follow what it returns, x itself for a right answer)."""
    version, before = x._version, x.detach().clone()
    with explained(what, CLAMP_RULES):
        y = ClampInplace.apply(x, low, high)
    expected = before.clamp(low, high)
    if bool(torch.equal(x.detach(), before)) and not bool(torch.equal(before, expected)):
        c.fail("returns-new-tensor", f"{what} left x unchanged: this Function works in place, so clamp x itself "
                                     "(not a clone of it).")
    c.require_close(x, expected, f"x after {what}", "wrong-forward", "forward must clamp x itself.",
                    rtol=1e-12, atol=1e-14)
    if x._version == version:
        c.fail("version-counter-missed",
               f"{what} changed x without moving its version counter (x._version is still {version}): the change "
               "went through x.data and x was not marked dirty, so autograd cannot know x changed.")
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
    """x computed from a leaf (a plain copy, and tanh deeper in a graph) is clamped in place: x itself is
    returned, holds x.clamp(low, high), its version counter moved, and the gradient of a loss computed from x
    afterwards is grad_output where low < x < high, 0 elsewhere. Visible: one (6,) float64 case;
    CLAMP_VALUE_TABLE: more shapes, bounds and float32."""
    c.require_function(ClampInplace, CLAMP)
    for case in cases:
        if case == "gradcheck":  # float64 gradcheck of x -> ClampInplace.apply(x.clone(), -0.5, 0.5)
            leaf = _clamp_input((6,), -0.5, 0.5, 231, torch.float64).requires_grad_(True)
            what = f"{CLAMP} under gradcheck"
            with explained(what, CLAMP_RULES):
                c.gradcheck(lambda t: ClampInplace.apply(t.clone(), -0.5, 0.5), (leaf,), what, hint=CLAMP_HINT)
            continue
        shape, low, high, seed, dtype = case
        start = _clamp_input(shape, low, high, seed, dtype)
        for how, make_x in (("x = leaf * 1.0", lambda leaf: leaf * 1.0),
                            ("x = (leaf - 1) + 1", lambda leaf: (leaf - 1.0) + 1.0)):
            leaf = start.clone().requires_grad_(True)
            x = make_x(leaf)
            what = f"{CLAMP}.apply(x, {low}, {high}) for {how} of shape {shape} ({_dtype_name(dtype)})"
            _clamp(ClampInplace, x, low, high, what)
            weight = c.randn(*shape, seed=seed + 100, requires_grad=False, dtype=dtype)
            grad = _grad_through(leaf, x, weight, f"{CLAMP}.backward", CLAMP_RULES)
            _require_clamp_grad(grad, start, weight, low, high, what)


CLAMP_SAVED_CASES = ("changed-after",)
CLAMP_SAVED_TABLE = ("changed-after", "left-alone", "clamped-again")


def clamp_saves_output(ClampInplace, cases=CLAMP_SAVED_CASES) -> None:
    """backward reads the saved output, so the version counter guards it. Visible: the caller changes x in place
    after the call (x.mul_(2)), and backward must raise autograd's in-place error rather than compute a mask from
    values that are no longer the output. CLAMP_SAVED_TABLE adds x left alone (backward runs: its values are
    clamp_values' rule) and x clamped again in place by a second call (which changes the first call's saved
    output: refused too). The backward goes through what the call returned (x itself for a right answer: that is
    clamp_values' rule)."""
    c.require_function(ClampInplace, CLAMP)
    start = _clamp_input((8,), -0.5, 0.5, 220, torch.float64)
    weight = c.randn(8, seed=221, requires_grad=False)
    for case in cases:
        leaf = start.clone().requires_grad_(True)
        x = leaf * 1.0
        what = f"{CLAMP}.apply(x, -0.5, 0.5)"
        y = _clamp_in_place(ClampInplace, x, -0.5, 0.5, what)
        if case == "left-alone":
            grad = _grad_through(leaf, y, weight, f"{CLAMP}.backward", CLAMP_RULES)
            c.require_shape(grad, tuple(weight.shape), f"the gradient through {what}")
            continue
        if case == "changed-after":
            what += ", then x.mul_(2) by the caller"
            x.mul_(2.0)
        else:
            what += f", then {CLAMP}.apply(x, -0.2, 0.3) on the same x"
            _clamp_in_place(ClampInplace, x, -0.2, 0.3, what)
        _require_refused(y, weight, leaf, what)


def _require_refused(x, weight, leaf, what) -> None:
    """The first call's saved output was changed: backward through it must raise autograd's in-place error (or,
    for an output that is a view of x, which is clamp_values' rule, autograd's refusal of a view changed in place)."""
    with explained(f"{CLAMP}.backward", (c.NOT_IMPLEMENTED,)):
        try:
            torch.autograd.grad((x * weight).sum(), [leaf])
        except RuntimeError as error:
            if INPLACE_ERROR in str(error) or "has been modified inplace" in str(error):
                return
            raise
    c.fail("output-change-unnoticed",
           f"{what}: x, your output, was changed after the call and backward did not notice. Its mask must come "
           "from the saved output: ctx.save_for_backward(x) after x.clamp_ (x is the output then), so that the "
           "version counter refuses a backward on changed values, rather than a mask or a copy kept on ctx.")


CLAMP_VERSION_CASES = ("saved-by-sin",)
CLAMP_VERSION_TABLE = ("saved-by-sin", "no-grad")          # (gradcheck is in CLAMP_VALUE_TABLE: the gradient's rule)


def clamp_version_counter(ClampInplace, cases=CLAMP_VERSION_CASES) -> None:
    """Visible: x saved by an earlier op (sin saves its input), then clamped in place: backward through sin must
    raise autograd's in-place error. CLAMP_VERSION_TABLE adds a tensor without gradient, clamped in place (what
    the call returns is clamp_values' rule)."""
    c.require_function(ClampInplace, CLAMP)
    for case in cases:
        if case == "saved-by-sin":
            what = f"{CLAMP}.apply(x, -0.5, 0.5) after x.sin()"
            _saved_then_changed(lambda x: _clamp_in_place(ClampInplace, x, -0.5, 0.5, what), what)
        elif case == "no-grad":
            x = _clamp_input((2, 3), -0.5, 0.5, 230, torch.float64)
            _clamp_in_place(ClampInplace, x, -0.5, 0.5, f"{CLAMP}.apply(x, -0.5, 0.5) for x that does not require "
                                                        "grad")


# ----------------------------------------------------------------------------------------- LinearFunction

LINEAR_FN = "LinearFunction"
LINEAR_HINT = ("for out = x @ weight.T + bias: grad_x = grad_output @ weight (N, in), grad_weight = "
               "grad_output.T @ x (out, in), grad_bias = grad_output.sum(0) (out,).")
INPUTS = ("x", "weight", "bias")
def _linear_ref(x, weight, bias):
    out = x.detach() @ weight.detach().T
    return out if bias is None else out + bias.detach()


def _linear_grads_ref(x, weight, bias, g):
    return g @ weight.detach(), g.T @ x.detach(), None if bias is None else g.sum(0)


def _flipped(facts) -> bool:
    got, expected = (str(facts.get(k, "")).split(",") for k in ("got", "expected"))
    return [p.strip() for p in got][::-1] == [p.strip() for p in expected]


_GRAD_SHAPE = (r"returned an invalid gradient at index (?P<index>\d+) - got \[(?P<got>.*?)\] but expected shape "
               r"compatible with \[(?P<expected>.*?)\]")
_NONE_BIAS_GRAD = ("{what}: bias is None, but backward returned a gradient for it: return None for a missing bias "
                   "(`if bias is not None and ctx.needs_input_grad[2]: ...`).")
_WEIGHT_T = ("{what}: the gradient of weight has shape [{got}], the transpose of weight's [{expected}]: "
             "grad_weight = grad_output.T @ x, of shape (out_features, in_features).")
_GRAD_X = ("{what}: the gradient of x has shape [{got}] but x has shape [{expected}]: "
           "grad_x = grad_output @ weight (weight is (out, in), so no transpose here).")
_GRAD_OTHER = "{what}: the gradient of input {position} has shape [{got}] but that input has shape [{expected}]. "


def _shape_rules(**source) -> tuple:
    """A gradient of the wrong shape, seen in the engine's error or in common's re-wording of it."""
    return (Rule("weight-grad-transposed", message=_WEIGHT_T, when=lambda f: f.get("index") == 1 and _flipped(f),
                 **source),
            Rule("wrong-grad-x", message=_GRAD_X, when=lambda f: f.get("index") == 0, **source),
            Rule("wrong-grad-shape", message=_GRAD_OTHER + c.literal(LINEAR_HINT), **source))


# Errors of LinearFunction, raised by the engine or already re-worded by common's engine rules.
LINEAR_RULES = _shape_rules(pattern=_GRAD_SHAPE, types=(RuntimeError,)) + _shape_rules(mistake="wrong-grad-shape") + (
    Rule("grad-for-none-bias", r"different than None at position 3", _NONE_BIAS_GRAD, types=(RuntimeError,)),
    Rule("grad-for-none-bias", mistake="missing-none", message=_NONE_BIAS_GRAD,
         when=lambda f: f.get("position") == 3),
    Rule("matmul-shapes", r"mat1 and mat2 shapes cannot be multiplied|size mismatch",
         "{what} raised \"{line}\". weight has shape (out_features, in_features): forward is x @ weight.T "
         "(+ bias); in backward grad_x = grad_output @ weight and grad_weight = grad_output.T @ x.",
         types=(RuntimeError,)),
    Rule("none-bias-crashes", "NoneType",
         "{what} crashed on bias = None ({line}): when bias is None, forward returns x @ weight.T and backward "
         "returns None for bias.", types=(TypeError, AttributeError)),
) + c.ENGINE_RULES


def _linear_inputs(n, n_in, n_out, seed, bias=True, dtype=torch.float64):
    x = c.randn(n, n_in, seed=seed, dtype=dtype)
    weight = c.randn(n_out, n_in, seed=seed + 1, dtype=dtype)
    b = c.randn(n_out, seed=seed + 2, dtype=dtype) if bias else None
    return x, weight, b


def _require_linear_out(out, x, weight, bias, what) -> None:
    expected = _linear_ref(x, weight, bias)
    if isinstance(out, torch.Tensor) and out.shape == expected.shape and weight.shape[0] == weight.shape[1]:
        no_t = x.detach() @ weight.detach() + (0 if bias is None else bias.detach())
        if bool(torch.allclose(out, no_t)) and not bool(torch.allclose(out, expected)):
            c.fail("forgets-transpose",
                   f"{what} computed x @ weight (+ bias), but weight has shape (out_features, in_features): "
                   "the layer is x @ weight.T + bias.")
    if bias is not None and isinstance(out, torch.Tensor) and out.shape == expected.shape \
            and bool(torch.allclose(out, _linear_ref(x, weight, None))):
        c.fail("ignores-bias", f"{what} ignored the bias: forward returns x @ weight.T + bias when bias is given.")
    c.require_close(out, expected, what, "wrong-forward", "forward returns x @ weight.T + bias (or x @ weight.T "
                    "when bias is None).", rtol=1e-10, atol=1e-12)


def _require_linear_grads(grads, x, weight, bias, g, what, wanted=(True, True, True)) -> None:
    expected = _linear_grads_ref(x, weight, bias, g)
    for i, (got, exp) in enumerate(zip(grads, expected)):
        if not wanted[i] or exp is None:
            continue
        name = INPUTS[i]
        if got is None:
            c.fail("missing-gradient", f"{what}: {name} requires grad but got no gradient.")
        if i == 1 and isinstance(got, torch.Tensor) and got.shape == exp.shape and exp.shape[0] == exp.shape[1] \
                and bool(torch.allclose(got, exp.T)) and not bool(torch.allclose(got, exp)):
            c.fail("weight-grad-transposed",
                   f"{what}: the gradient of weight is transposed: grad_weight = grad_output.T @ x, of shape "
                   "(out_features, in_features) like weight.")
        if i == 2 and isinstance(got, torch.Tensor) and got.shape == exp.shape \
                and bool(torch.allclose(got, torch.ones_like(exp) * g.shape[0])) and not bool(torch.allclose(got, exp)):
            c.fail("ignores-grad-output", f"{what}: the gradient of bias ignores grad_output: it is "
                                          "grad_output.sum(0), the sum over the batch of the incoming gradient.")
        c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                        rtol=1e-10, atol=1e-12)


# (N, in, out, has_bias, dtype, seed)
LINEAR_VALUE_CASES = [(4, 3, 2, True, torch.float64, 50), (4, 3, 2, False, torch.float64, 60)]
LINEAR_VALUE_TABLE = [(5, 3, 3, True, torch.float64, 50), (1, 4, 2, True, torch.float64, 60),
                      (3, 2, 2, False, torch.float64, 70), (6, 5, 4, True, torch.float32, 80)]


def linear_values(LinearFunction, cases=LINEAR_VALUE_CASES) -> None:
    """Values, the node, and the three gradients through autograd with a random grad_output. Visible: x (4, 3),
    weight (2, 3), bias (2,) and bias None; LINEAR_VALUE_TABLE: more sizes (a square weight, N = 1) and float32."""
    c.require_function(LinearFunction, LINEAR_FN)
    for n, n_in, n_out, has_bias, dtype, seed in cases:
        x, weight, bias = _linear_inputs(n, n_in, n_out, seed=seed, bias=has_bias, dtype=dtype)
        what = (f"{LINEAR_FN}.apply(x, weight, {'bias' if has_bias else 'None'}) with x ({n}, {n_in}), weight "
                f"({n_out}, {n_in}) ({str(dtype).removeprefix('torch.')})")
        with explained(what, LINEAR_RULES):
            out = c.call(LinearFunction.apply, x, weight, bias, what=f"{LINEAR_FN}.forward")
        tol = 1e-5 if dtype == torch.float32 else 1e-10
        if dtype == torch.float32:
            c.require_close(out, _linear_ref(x, weight, bias), what, "wrong-forward",
                            "forward returns x @ weight.T + bias.", rtol=tol, atol=tol)
        else:
            _require_linear_out(out, x, weight, bias, what)
        c.require_own_node(out, LinearFunction, LINEAR_FN)
        g = c.randn(n, n_out, seed=seed + 5, requires_grad=False, dtype=dtype)
        inputs = [x, weight] + ([bias] if has_bias else [])
        with explained(what, LINEAR_RULES):
            grads = c.backward_grads(out, inputs, g, what=f"{LINEAR_FN}.backward")
        grads = tuple(grads) + ((None,) if not has_bias else ())
        if dtype == torch.float32:
            for got, exp, name in zip(grads, _linear_grads_ref(x, weight, bias, g), INPUTS):
                if exp is not None:
                    c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                                    rtol=tol, atol=tol)
        else:
            _require_linear_grads(grads, x, weight, bias, g, what)


# (N, in, out, seed)
LINEAR_GRADCHECK_CASES = [(3, 4, 2, 0)]
LINEAR_GRADCHECK_TABLE = [(n, i, o, s) for s in (1, 2) for (n, i, o) in ((1, 3, 2), (4, 2, 5), (3, 3, 3))]


def linear_gradcheck(LinearFunction, cases=LINEAR_GRADCHECK_CASES) -> None:
    """float64 gradcheck with respect to x, weight and bias (and with bias None). Visible: one size;
    LINEAR_GRADCHECK_TABLE: several sizes and seeds."""
    c.require_function(LinearFunction, LINEAR_FN)
    for n, n_in, n_out, seed in cases:
        x, weight, bias = _linear_inputs(n, n_in, n_out, seed=70 + seed)
        what = f"{LINEAR_FN} with x ({n}, {n_in}), weight ({n_out}, {n_in})"
        with explained(what, LINEAR_RULES):
            c.gradcheck(LinearFunction.apply, (x, weight, bias), what + " and a bias", hint=LINEAR_HINT)
            c.gradcheck(lambda a, w: LinearFunction.apply(a, w, None), (x, weight), what + " and bias None",
                        hint=LINEAR_HINT)


def _direct(LinearFunction, needs, x, weight, bias, g, what):
    """forward then backward called by hand with a crafted ctx: exactly what backward returns, before the engine
    drops (or sums) anything."""
    ctx = c.FakeCtx(needs)
    args = (x.detach(), weight.detach(), None if bias is None else bias.detach())
    with torch.no_grad(), explained(what, LINEAR_RULES):
        if c.uses_setup_context(LinearFunction):
            out = c.call(LinearFunction.forward, *args, what=f"{LINEAR_FN}.forward")
            c.call(LinearFunction.setup_context, ctx, args, out, what=f"{LINEAR_FN}.setup_context")
        else:
            c.call(LinearFunction.forward, ctx, *args, what=f"{LINEAR_FN}.forward")
        grads = c.call(LinearFunction.backward, ctx, g, what=f"{LINEAR_FN}.backward")
    if not isinstance(grads, tuple) or len(grads) != 3:
        got = ("a list" if isinstance(grads, list) else f"{len(grads)} values" if isinstance(grads, tuple)
               else f"a {type(grads).__name__}")
        c.fail("wrong-arity", f"{what}: backward returned {got}; it must return a tuple of three, one per input "
                              "(x, weight, bias), with None where there is no gradient.")
    return grads


# (needs_input_grad, has_bias, seed)
NEEDS_CASES = [((True, True, True), True, 90), ((True, False, False), True, 91)]
NEEDS_TABLE = [((True, False, False), True, 90), ((False, True, True), True, 91), ((False, False, True), True, 92),
               ((True, True, False), False, 93), ((False, True, False), False, 94)]


def linear_needs_input_grad(LinearFunction, cases=NEEDS_CASES) -> None:
    """Direct calls of backward with a crafted ctx: a gradient of each input's exact shape (bias summed over the
    batch), None for a missing bias, None for every input whose needs_input_grad entry is False. Visible: all
    three needed, then only x; NEEDS_TABLE: every other pattern, with and without bias."""
    c.require_function(LinearFunction, LINEAR_FN)
    for needs, has_bias, seed in cases:
        x, weight, bias = _linear_inputs(4, 3, 2, seed=seed, bias=has_bias)
        g = c.randn(4, 2, seed=seed + 5, requires_grad=False)
        needs = needs if has_bias else needs[:2] + (False,)
        what = (f"{LINEAR_FN}.backward called with ctx.needs_input_grad = {needs}"
                + ("" if has_bias else " and bias None"))
        grads = _direct(LinearFunction, needs, x, weight, bias, g, what)
        _linear_needs_verdict(grads, needs, has_bias, x, weight, bias, g, what)
        # The same with the node autograd made for LinearFunction.apply as backward's ctx, on inputs that require
        # grad as needs says: a stand-in ctx can be recognised, autograd's own node cannot.
        if not any(needs):
            continue
        inputs = tuple(None if t is None else t.detach().clone().requires_grad_(n)
                       for t, n in zip((x, weight, bias), needs))
        real = behaviour.backward_by_its_node(LinearFunction, inputs, g, rules=LINEAR_RULES, as_returned=True,
                                              what=f"{LINEAR_FN}.backward with autograd's own node as its ctx")
        if real is None:
            continue  # no node of its own: the values test says so
        lead = (f"{what}: called directly, backward returned what it should; but with the node autograd made for "
                f"{LINEAR_FN}.apply (on inputs requiring grad as needs_input_grad says) as its ctx")
        if not isinstance(real, tuple) or len(real) != 3:
            got = f"{len(real)} values" if isinstance(real, tuple) else f"a {behaviour.type_name(real)}"
            c.fail("wrong-arity", f"{lead}, backward returned {got}; it must return a tuple of three, one per input "
                                  "(x, weight, bias), with None where there is no gradient.")
        _linear_needs_verdict(real, needs, has_bias, x, weight, bias, g, lead)


def _linear_needs_verdict(grads, needs, has_bias, x, weight, bias, g, what: str) -> None:
    """What backward returned for `needs`: a gradient of each needed input's exact shape and value (bias summed
    over the batch), None for a missing bias and for every input whose needs_input_grad entry is False."""
    expected = _linear_grads_ref(x, weight, bias, g)
    if not has_bias and grads[2] is not None:
        c.fail("grad-for-none-bias",
               f"{what}: backward returned a {behaviour.type_name(grads[2])} for bias, which is None: return None for "
               "a missing bias.")
    for i, name in enumerate(INPUTS):
        got, exp = grads[i], expected[i]
        if not needs[i]:
            if got is not None:
                c.fail("ignores-needs-input-grad",
                       f"{what}: backward computed a gradient for {name}, whose ctx.needs_input_grad entry is "
                       f"False (a frozen weight, an input that is data). Check ctx.needs_input_grad[{i}] and "
                       f"return None for {name}: skipping that matmul is the point.")
            continue
        if got is None:
            c.fail("missing-gradient", f"{what}: backward returned None for {name}, which needs a gradient.")
        if i == 2 and isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(g.shape):
            c.fail("bias-grad-not-summed",
                   f"{what}: the gradient of bias has shape {tuple(got.shape)}, grad_output's, not bias's "
                   f"{tuple(bias.shape)}: sum it over the batch, grad_output.sum(0). (Through autograd the "
                   "engine silently sums such a gradient for you; do not lean on that.)")
        if i == 1 and isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(exp.shape[::-1]):
            c.fail("weight-grad-transposed",
                   f"{what}: the gradient of weight has shape {tuple(got.shape)}, the transpose of weight's "
                   f"{tuple(exp.shape)}: grad_weight = grad_output.T @ x.")
        c.require_shape(got, exp.shape, f"{what}: the gradient of {name}", code="wrong-grad-shape")
        c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative", LINEAR_HINT,
                        rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------------------------ Linear

LINEAR = "Linear"


def _reference_linear_function():
    class LinearFunction(torch.autograd.Function):
        """The exercise's answer, for running a learner's Linear when the learner's own LinearFunction is wrong."""

        @staticmethod
        def forward(ctx, x, weight, bias):
            ctx.save_for_backward(x, weight)
            ctx.has_bias = bias is not None
            return _linear_ref(x, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            x, weight = ctx.saved_tensors
            grad_x, grad_weight, grad_bias = _linear_grads_ref(x, weight, True if ctx.has_bias else None, grad_output)
            return grad_x, grad_weight, grad_bias

    return LinearFunction


REFERENCE_LINEAR_FUNCTION = _reference_linear_function()


def _linear_function_works(LinearFunction, x, weight, bias, grad_output) -> bool:
    """Whether the learner's LinearFunction gives the reference's output and gradients on these inputs."""
    try:
        leaves = [t.detach().clone().requires_grad_(True) for t in (x, weight)]
        b = None if bias is None else bias.detach().clone().requires_grad_(True)
        out = LinearFunction.apply(*leaves, b)
        grads = torch.autograd.grad(out, leaves + ([] if b is None else [b]), grad_output)
    except Exception:  # noqa: BLE001 - any failure of it means the module runs on the reference instead
        return False
    expected = (_linear_ref(x, weight, bias),) + tuple(g for g in _linear_grads_ref(x, weight, bias, grad_output)
                                                       if g is not None)
    return len(grads) == len(expected) - 1 and all(
        isinstance(a, torch.Tensor) and a.shape == e.shape and bool(torch.allclose(a.detach(), e, atol=1e-8))
        for a, e in zip((out,) + tuple(grads), expected))


@c.probe
def linear_facts(Linear, sizes, bias, weight, bias_values, x, grad_output, steps: int = 0, lr: float = 0.1,
                 target=None) -> dict:
    """Probe: build Linear(in, out) (or Linear(in, out, bias) when `bias` is not None) in the learner's process,
    copy `weight` and `bias_values` in, and report what running it gives: the output of m(x) (its grad_fn name
    crosses with it), the gradients of (out * grad_output).sum() with respect to x, weight and bias (None where
    none), or the error forward or backward raised (the module is moved to weight's dtype first); with `steps`,
    the losses of that many SGD steps on ((m(x) - target) ** 2).mean() over m.parameters().

    If the learner's LinearFunction (the name Linear's forward reads) does not give the reference's output and
    gradients on these inputs, the module runs with the reference LinearFunction in its place (`reference` is
    then True): LinearFunction's own tests take its points, and these judge the module's code."""
    n_in, n_out = sizes
    with torch.random.fork_rng(devices=[]):
        m = Linear(n_in, n_out) if bias is None else Linear(n_in, n_out, bias)
    m.to(weight.dtype)  # the judge's float64 weights and inputs (parameters keep their identity)
    for name in ("weight", "bias"):  # a plain tensor attribute is not moved by .to: linear_parameters' rule
        value = getattr(m, name, None)
        if isinstance(value, torch.Tensor) and value.dtype != weight.dtype and name not in dict(m.named_buffers()):
            setattr(m, name, value.detach().to(weight.dtype).requires_grad_(value.requires_grad))
    w, b = getattr(m, "weight", None), getattr(m, "bias", None)
    with torch.no_grad():  # a weight stored as (in, out) gets the given weight in its own layout: its own test
        w.copy_(weight.T if tuple(w.shape) == tuple(weight.T.shape) != tuple(weight.shape) else weight)
        if isinstance(b, torch.Tensor) and bias_values is not None and tuple(b.shape) == tuple(bias_values.shape):
            b.copy_(bias_values)
    names = getattr(getattr(type(m), "forward", None), "__globals__", {})
    own = names.get("LinearFunction")
    facts: dict = {"reference": own is not None and not _linear_function_works(own, x, weight, bias_values,
                                                                               grad_output)}
    if facts["reference"]:
        names["LinearFunction"] = REFERENCE_LINEAR_FUNCTION
    try:
        _run_module(m, x, w, b, grad_output, steps, lr, target, facts)
    except (NotImplementedError, RuntimeError, TypeError, AttributeError, ValueError) as error:
        facts["error"] = {"type": type(error).__name__, "message": str(error)[:2000]}
    finally:
        if facts["reference"]:
            names["LinearFunction"] = own
    return facts


def _run_module(m, x, w, b, grad_output, steps, lr, target, facts) -> None:
    out = m(x)
    facts["out"] = out
    if isinstance(out, torch.Tensor) and out.requires_grad:
        wrt = [t for t in (x, w, b) if isinstance(t, torch.Tensor) and t.requires_grad]
        grads = iter(torch.autograd.grad(out, wrt, grad_output, allow_unused=True))
        facts["grads"] = [next(grads) if isinstance(t, torch.Tensor) and t.requires_grad else None for t in (x, w, b)]
    if steps:
        optimiser = torch.optim.SGD(m.parameters(), lr=lr)
        losses = []
        for _ in range(steps):
            optimiser.zero_grad()
            loss = ((m(x.detach()) - target) ** 2).mean()
            loss.backward()
            optimiser.step()
            losses.append(float(loss.detach()))
        facts["losses"] = losses


CONSTRUCTION_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("no-super-init", r"before Module\.__init__\(\) call|has no attribute '_parameters'",
         "{what} raised \"{line}\": call super().__init__() first in __init__, before assigning any parameter.",
         types=(AttributeError, RuntimeError)),
    Rule("wrong-signature", None, "{what} raised TypeError: {line}. The signature is "
         "Linear(in_features, out_features, bias=True).", types=(TypeError,)),
    Rule("crashes", None, "{what} raised {kind}: {line}", types=(AttributeError, RuntimeError, ValueError)),
)

def _state_rules(expected) -> tuple:
    """What nn.Module's own load_state_dict (strict) says when the module's parameters are not exactly `expected`."""
    return (Rule("extra-parameters", r"(?P<keys>(?:Missing|Unexpected) key\(s\) in state_dict:[^\n]*)",
                 "{what}: its parameters and buffers should be exactly " + c.literal(str(expected))
                 + ", but load_state_dict says: {keys}", types=(RuntimeError,)),)


_MISSING = object()


def _attribute(m, name):
    try:
        return getattr(m, name)
    except AttributeError:
        return _MISSING


def _registered(m, name) -> bool:
    """Whether `name` is one of the module's parameters, as nn.Module.get_parameter says."""
    try:
        m.get_parameter(name)
    except AttributeError:
        return False
    return True


def _kind(m, name, value) -> str:
    if value is _MISSING:
        return "missing"
    if value is None:
        return "None"
    if not isinstance(value, torch.Tensor):
        return "not a tensor"
    return "Parameter" if _registered(m, name) else "plain tensor (or a buffer)"


def _build(Linear, sizes, bias, what):
    """The learner's Linear, built where it lives (through the proxy when grading)."""
    n_in, n_out = sizes
    with explained(what, CONSTRUCTION_RULES):
        m = Linear(n_in, n_out) if bias is None else Linear(n_in, n_out, bias)
    if _attribute(m, "get_parameter") is _MISSING or _attribute(m, "load_state_dict") is _MISSING:
        c.fail("not-a-module", f"{what} gave something that is not an nn.Module: write class Linear(nn.Module).")
    return m


def _require_parameters(m, n_in, n_out, has_bias, what) -> None:
    weight = _attribute(m, "weight")
    kind = _kind(m, "weight", weight)
    if kind == "missing":
        c.fail("no-weight", f"{what} has no attribute `weight`: create it in __init__, "
                            "self.weight = nn.Parameter(torch.empty(out_features, in_features)) (then initialise it).")
    if kind != "Parameter":
        c.fail("not-a-parameter",
               f"{what}: weight is a {kind}, not an nn.Parameter, so it is not among the module's "
               "parameters: m.parameters() (and so every optimiser) never sees it, and it is never trained. "
               "Wrap it: self.weight = nn.Parameter(...).")
    shape = tuple(weight.shape)
    if shape == (n_in, n_out) and n_in != n_out:
        c.fail("weight-shape-in-out",
               f"{what}: weight has shape {shape} = (in_features, out_features), but the convention "
               f"(nn.Linear's, and LinearFunction's contract) is (out_features, in_features) = {(n_out, n_in)}.")
    if shape != (n_out, n_in):
        c.fail("wrong-weight-shape", f"{what}: weight has shape {shape} but should have shape "
                                     f"(out_features, in_features) = {(n_out, n_in)}.")
    bias = _attribute(m, "bias")
    kind = _kind(m, "bias", bias)
    if has_bias:
        if kind in ("missing", "None"):
            c.fail("no-bias", f"{what}: there is no bias parameter, but bias=True (the default) must create one: "
                              "self.bias = nn.Parameter(torch.empty(out_features)).")
        if kind != "Parameter":
            c.fail("not-a-parameter",
                   f"{what}: bias is a {kind}, not an nn.Parameter, so no optimiser ever updates it. "
                   "Wrap it: self.bias = nn.Parameter(...).")
        if tuple(bias.shape) != (n_out,):
            c.fail("wrong-bias-shape", f"{what}: bias has shape {tuple(bias.shape)} but should have shape "
                                       f"(out_features,) = {(n_out,)}.")
    else:
        if kind not in ("missing", "None"):
            c.fail("bias-when-false",
                   f"{what}: bias=False must create no bias at all, but the module has a bias {kind}. "
                   "Write self.register_parameter(\"bias\", None) (or self.bias = None) in that case, and pass "
                   "self.bias (None) to LinearFunction.apply.")
        if kind == "missing":
            c.fail("no-bias-attribute",
                   f"{what}: with bias=False the module should still have a `bias` attribute set to None "
                   "(self.register_parameter(\"bias\", None)), so forward can pass self.bias to LinearFunction.")
    init = weight.detach().clone()  # before load_state_dict writes into it (in one process it is the same tensor)
    state = {"weight": torch.zeros(n_out, n_in)} | ({"bias": torch.zeros(n_out)} if has_bias else {})
    expected = [(name, tuple(t.shape)) for name, t in state.items()]
    with explained(what, _state_rules(expected)):
        m.load_state_dict(state)
    finite = bool(torch.isfinite(init).all())
    constant = init.numel() > 1 and bool((init == init.flatten()[0]).all())
    if not finite or constant or bool(init.abs().max() > 10):
        found = "not finite" if not finite else "all equal" if constant else "some larger than 10"
        c.fail("not-initialised",
               f"{what}: the initial weight should be small random values, but they are {found}. torch.empty is "
               "uninitialised memory: fill it, e.g. uniform in +-1/sqrt(in_features) as nn.Linear does "
               "(nn.init.uniform_(self.weight, -bound, bound)).")


def _require_runnable(m, n_in, n_out, has_bias, what, trained=False) -> None:
    """What running the module with given weights needs, and no more: a weight tensor of (out, in) values (in
    either layout: the layout is linear_parameters' rule) and, with a bias, a bias tensor of shape (out,); for
    training, both among m.parameters(). The other rules of the parameters (a bias attribute when bias=False,
    the initial values, no extra parameters) are linear_parameters' alone, so one mistake costs one point."""
    weight = _attribute(m, "weight")
    kind = _kind(m, "weight", weight)
    if kind in ("missing", "None", "not a tensor"):
        c.fail("no-weight", f"{what} has no weight tensor (self.weight is {kind}): create it in __init__, "
                            "self.weight = nn.Parameter(torch.empty(out_features, in_features)) (then initialise it).")
    if tuple(weight.shape) not in ((n_out, n_in), (n_in, n_out)):
        c.fail("wrong-weight-shape", f"{what}: weight has shape {tuple(weight.shape)} but should have shape "
                                     f"(out_features, in_features) = {(n_out, n_in)}.")
    bias = _attribute(m, "bias")
    bias_kind = _kind(m, "bias", bias)
    if has_bias and bias_kind in ("missing", "None"):
        c.fail("no-bias", f"{what}: there is no bias parameter, but bias=True (the default) must create one: "
                          "self.bias = nn.Parameter(torch.empty(out_features)).")
    if has_bias and (bias_kind == "not a tensor" or tuple(bias.shape) != (n_out,)):
        c.fail("wrong-bias-shape", f"{what}: bias should be a tensor of shape (out_features,) = {(n_out,)}.")
    if trained and not has_bias and bias_kind not in ("missing", "None"):
        c.fail("bias-when-false", f"{what}: bias=False must create no bias at all, but the module has a bias "
                                  f"{bias_kind}, which training changes too.")
    if trained:
        for name, k in (("weight", kind), ("bias", bias_kind if has_bias else "Parameter")):
            if k != "Parameter":
                c.fail("not-a-parameter",
                       f"{what}: {name} is a {k}, not an nn.Parameter, so it is not among m.parameters(): the "
                       f"optimiser never sees it, and it is never trained. Wrap it: self.{name} = nn.Parameter(...).")


def _module_inputs(n, n_in, n_out, seed, has_bias):
    x = c.randn(n, n_in, seed=seed)
    weight = c.randn(n_out, n_in, seed=seed + 1, requires_grad=False) / n_in ** 0.5
    bias = c.randn(n_out, seed=seed + 2, requires_grad=False) if has_bias else None
    g = c.randn(n, n_out, seed=seed + 3, requires_grad=False)
    return x, weight, bias, g


def _describe_call(sizes, bias):
    n_in, n_out = sizes
    return f"{LINEAR}({n_in}, {n_out})" if bias is None else f"{LINEAR}({n_in}, {n_out}, {bias})"


def _require_forward_error_free(facts, what) -> None:
    error = facts.get("error")
    if not error:
        return
    if error["type"] == "NotImplementedError":
        c.fail("not-implemented", f"{what}: something it calls is not implemented yet (NotImplementedError): "
                                  "write LinearFunction (the exercise above) and Linear.forward.")
    text = error["message"].splitlines()[0][:200] if error["message"] else ""
    c.fail("crashes", f"{what}: forward (or backward) raised {error['type']}: {text}")


# ((in, out), the bias argument or None for the default)
PARAMETER_CASES = [((3, 2), None), ((3, 2), False)]
PARAMETER_TABLE = [((5, 4), True), ((4, 5), False), ((1, 1), None), ((2, 6), True)]


def linear_parameters(Linear, cases=PARAMETER_CASES) -> None:
    """The module built where the learner's class lives, its parameters read as tensors: weight (out, in) and
    bias (out,) registered as nn.Parameters (get_parameter), randomly initialised, and exactly those
    (load_state_dict, strict); with bias=False, bias None and no bias parameter. Visible: Linear(3, 2) and
    Linear(3, 2, False); PARAMETER_TABLE: other sizes."""
    for sizes, bias in cases:
        what = _describe_call(sizes, bias)
        _require_parameters(_build(Linear, sizes, bias, what), *sizes, bias is not False, what)


FORWARD_CASES = [((3, 2), None, 130), ((3, 2), False, 140)]
# Not square: a weight stored as (in, out) is told apart by its shape (its layout is linear_parameters' rule).
FORWARD_TABLE = [((5, 4), True, 130), ((4, 5), False, 140), ((2, 5), None, 150)]


def linear_forward(Linear, cases=FORWARD_CASES) -> None:
    """With given weights: m(x) equals x @ weight.T + bias, its grad_fn is LinearFunctionBackward, and the
    gradients of x, weight and bias are right (the module run on a reference LinearFunction when the learner's
    is wrong, see linear_facts). Visible: Linear(3, 2) and Linear(3, 2, False); FORWARD_TABLE: other sizes."""
    for sizes, bias, seed in cases:
        has_bias = bias is not False
        x, weight, b, g = _module_inputs(4, *sizes, seed=seed, has_bias=has_bias)
        what = _describe_call(sizes, bias)
        _require_runnable(_build(Linear, sizes, bias, what), *sizes, has_bias, what)
        with explained(what, CONSTRUCTION_RULES):
            facts = linear_facts(Linear, sizes, bias, weight, b, x, g)
        _require_forward_error_free(facts, f"{what}(x)")
        _require_module_output(facts, x, weight, b, g, what)


def _require_module_output(facts, x, weight, b, g, what) -> None:
    out = facts.get("out")
    expected = _linear_ref(x, weight, b)
    if b is not None and isinstance(out, torch.Tensor) and out.shape == expected.shape \
            and bool(torch.allclose(out.detach(), _linear_ref(x, weight, None))):
        c.fail("bias-unused", f"{what}(x) ignored its bias: forward must pass self.bias to "
                              "LinearFunction.apply(x, self.weight, self.bias).")
    c.require_close(out, expected, f"{what}(x) with given weights", "wrong-forward",
                    "forward returns LinearFunction.apply(x, self.weight, self.bias).", rtol=1e-10, atol=1e-12)
    node = c.grad_fn_name(out)
    if node != f"{LINEAR_FN}Backward":
        c.fail("bypasses-function",
               f"{what}(x) has grad_fn {node}, not {LINEAR_FN}Backward: forward must go through your Function, "
               "return LinearFunction.apply(x, self.weight, self.bias) (not F.linear, not x @ self.weight.T, "
               "not LinearFunction.forward).")
    grads = facts.get("grads")
    if grads is None:
        c.fail("no-graph", f"{what}(x) does not require grad: do not detach the output or run under no_grad.")
    for name, got, exp in zip(INPUTS, grads, _linear_grads_ref(x, weight, b, g)):
        if exp is None:
            continue
        if got is None:
            c.fail("missing-gradient", f"{what}: {name} got no gradient from (m(x) * grad_output).sum().")
        if name == "weight" and tuple(got.shape) == tuple(exp.T.shape) != tuple(exp.shape):
            got = got.T  # a weight stored as (in, out): its layout is linear_parameters' rule
        c.require_close(got, exp, f"{what}: the gradient of {name}", "wrong-derivative",
                        "forward must pass x, self.weight and self.bias to LinearFunction.apply, in that order.",
                        rtol=1e-10, atol=1e-12)


def _sgd_reference(x, weight, bias, target, steps, lr):
    w = weight.clone().requires_grad_(True)
    b = None if bias is None else bias.clone().requires_grad_(True)
    params = [w] + ([] if b is None else [b])
    optimiser = torch.optim.SGD(params, lr=lr)
    losses = []
    for _ in range(steps):
        optimiser.zero_grad()
        out = x.detach() @ w.T + (0 if b is None else b)
        loss = ((out - target) ** 2).mean()
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    return losses


TRAIN_CASES = [((3, 2), None, 150)]
TRAIN_TABLE = [((3, 2), False, 160), ((6, 4), True, 170)]


def linear_trains(Linear, cases=TRAIN_CASES) -> None:
    """Five SGD steps (lr 0.1) over m.parameters() on a mean squared error: the losses fall, and equal those of the
    same steps on a reference layer with the same weights. Visible: Linear(3, 2); TRAIN_TABLE: without bias, and
    other sizes."""
    for sizes, bias, seed in cases:
        has_bias = bias is not False
        x, weight, b, g = _module_inputs(8, *sizes, seed=seed, has_bias=has_bias)
        target = c.randn(8, sizes[1], seed=seed + 5, requires_grad=False)
        what = _describe_call(sizes, bias)
        _require_runnable(_build(Linear, sizes, bias, what), *sizes, has_bias, what, trained=True)
        with explained(what, CONSTRUCTION_RULES):
            facts = linear_facts(Linear, sizes, bias, weight, b, x, g, steps=5, lr=0.1, target=target)
        _require_forward_error_free(facts, f"training {what}")
        losses = facts.get("losses")
        expected = _sgd_reference(x, weight, b, target, 5, 0.1)
        if losses is None:
            c.fail("no-graph", f"training {what} gave no losses.")
        if len(set(losses)) == 1:
            c.fail("not-trained", f"five SGD steps on {what} left the loss at {losses[0]:.4g}: the optimiser changes "
                                  "nothing. Are weight and bias nn.Parameters, and does forward use them?")
        got, exp = torch.tensor(losses, dtype=torch.float64), torch.tensor(expected, dtype=torch.float64)
        c.require_close(got, exp, f"the losses of five SGD steps on {what}", "wrong-training",
                        "the same steps on nn.functional.linear with the same weights give other losses: check "
                        "that forward passes self.weight and self.bias to LinearFunction.apply.",
                        rtol=1e-8, atol=1e-10)
