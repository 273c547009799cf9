"""Checks for notebook 08's `RecomputeSiLU` (see `memory`).

`RecomputeSiLU.apply(x)` returns x * sigmoid(x), saves only x and recomputes the sigmoid in backward.

What the judge observes itself: its values and gradients, and what its `forward` saves when called directly with
a stand-in ctx the judge made (the tensors given to `ctx.save_for_backward` cross back by value, x itself as x
itself; any tensor kept on ctx is found there); the in-place change of x before backward (the version counters of
both processes agree). The node autograd made for `.apply` is read in the learner's process
(`behaviour.real_node`): what it saved and what else the call left alive.
"""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks import raw_errors
from autograder.checks.explain import Rule
from autograder.checks.memory.layers import storage_key


SILU = "RecomputeSiLU"
SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
SILU_HINT = ("with s = sigmoid(x), d/dx [x * s] = s + x * s * (1 - s); backward returns grad_output times that "
             "(do not forget the x * s * (1 - s) term).")


def _describe(tensor, x, out) -> str:
    """What a saved tensor is, in the learner's words: by identity or storage first, then by its values."""
    if tensor is x or storage_key(tensor) == storage_key(x):
        return "x"
    if isinstance(out, torch.Tensor) and (tensor is out or storage_key(tensor) == storage_key(out)):
        return "the output"
    if tensor.shape == x.shape and tensor.dtype == x.dtype:
        value, x = tensor.detach(), x.detach()
        if bool(torch.allclose(value, torch.sigmoid(x))):
            return "sigmoid(x)"
        if bool(torch.allclose(value, torch.nn.functional.silu(x))):
            return "the output"
        if bool(torch.allclose(value, x)):
            return "a copy of x"
    return f"a tensor of shape {tuple(tensor.shape)}"


def _raises_inplace_error(fn) -> bool:
    """Whether `fn()` raises autograd's in-place modification error (any other error passes on)."""
    try:
        fn()
    except RuntimeError as error:
        if raw_errors.says(error, "inplace-error"):
            return True
        raise
    return False


# ---------------------------------------------------------------------------------------- RecomputeSiLU

def _torch_silu(x):
    return torch.nn.functional.silu(x.detach())


def _torch_silu_grad(x):
    """The derivative of torch's own silu at x, by autograd (in x's dtype)."""
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(torch.nn.functional.silu(leaf).sum(), leaf)
    return grad


EXTREMES = (-100.0, -40.0, -5.0, 0.3, 5.0, 40.0, 100.0)
# (dtype, the entries of x): the visible case, then float32 and float64 at large |x|.
SILU_VALUE_CASES = ((torch.float64, (-3.0, -0.5, 0.0, 1.0, 2.5)), (torch.float32, EXTREMES),
                    (torch.float64, EXTREMES))


def silu_values(RecomputeSiLU, cases=SILU_VALUE_CASES[:1]) -> None:
    """Forward values and the gradient; the output keeps x's dtype, and large |x| gives finite, right values."""
    c.require_function(RecomputeSiLU, SILU)
    c.require_self_contained(RecomputeSiLU, SILU)
    for dtype, entries in cases:
        x = torch.tensor(entries, dtype=dtype, requires_grad=True)
        large = max(abs(v) for v in entries) > 10
        where = f" at large |x| ({dtype})" if large else ""
        # float64 to its last digits (a float32 computation cast back is 1e-8 off); float32 and large |x| looser.
        tolerance = {"rtol": 1e-12, "atol": 1e-12} if dtype == torch.float64 and not large else {"rtol": 1e-5,
                                                                                                 "atol": 1e-6}
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        if not isinstance(y, torch.Tensor):
            c.fail("not-a-tensor", f"RecomputeSiLU.apply(x) should return a tensor, got {type(y).__name__}.")
        if y.dtype != dtype:
            c.fail("wrong-dtype", f"for a {dtype} input RecomputeSiLU.apply returned {y.dtype}: compute in the "
                                  "input's dtype (do not convert).")
        # y.sum(), as losses are made: grad_output is one number broadcast, which backward must not write into (the
        # other tests give backward grad_outputs of their own)
        (grad,) = c.backward_grads(y.sum(), [x], what="RecomputeSiLU.backward")
        if grad is None:
            c.fail("no-gradient", "RecomputeSiLU.apply(x) gave x no gradient: backward must return the gradient "
                                  "of x.")
        if not bool(torch.isfinite(y).all()) or not bool(torch.isfinite(grad).all()):
            c.fail("unstable", f"RecomputeSiLU gives inf or nan for large |x| ({dtype}, x = ±40, ±100): "
                               "compute sigmoid with torch.sigmoid on x itself: exp(x) / (1 + exp(x)) overflows, and "
                               "x recovered from a saved sigmoid (which rounds to 1) is inf.")
        c.require_close(y, _torch_silu(x), f"RecomputeSiLU.apply(x){where}", "wrong-forward",
                        "forward should return x times sigmoid(x), in x's dtype throughout.", **tolerance)
        c.require_close(grad, _torch_silu_grad(x), f"the gradient of RecomputeSiLU.apply(x).sum(){where}",
                        "wrong-derivative", SILU_HINT, **tolerance)


# (seed, shape) pairs.
SILU_GRADCHECK_CASES = tuple((seed, shape) for seed in (0, 1, 2) for shape in SHAPES)


def silu_gradcheck(RecomputeSiLU, cases=((0, (3,)),)) -> None:
    """float64 finite differences, one case per (seed, shape)."""
    c.require_function(RecomputeSiLU, SILU)
    for seed, shape in cases:
        x = c.randn(*shape, seed=seed, scale=2.0)
        c.gradcheck(RecomputeSiLU.apply, (x,), f"RecomputeSiLU on shape {shape}", hint=SILU_HINT,
                    reference=torch.nn.functional.silu)


SILU_GRAPH_CASES = (0, 5, 15)  # seeds


def silu_graph(RecomputeSiLU, cases=SILU_GRAPH_CASES[:1]) -> None:
    """.apply records RecomputeSiLU's own node, and backward multiplies by grad_output: the gradient for a random
    grad_output is that grad_output times the answer's own gradient for grad_output = 1 (silu is elementwise);
    whether that derivative is right is the values test's."""
    c.require_function(RecomputeSiLU, SILU)
    for seed in cases:
        x = c.randn(2, 3, seed=seed)
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        c.require_own_node(y, RecomputeSiLU, SILU)
        weights = c.randn(2, 3, seed=seed + 1, requires_grad=False)
        # copies of grad_output, here and below: a backward that writes into it is the values test's rule
        (grad,) = c.backward_grads(y, [x], weights.clone(), what="RecomputeSiLU.backward")
        unit = _own_gradient(RecomputeSiLU, x, torch.ones_like(weights))
        if not bool(unit.ne(0).any()):
            c.fail("no-gradient", "RecomputeSiLU's gradient for grad_output = 1 is zero everywhere, so its scaling "
                                  "with grad_output cannot be seen: backward must return grad_output * dy/dx.")
        c.require_close(grad, weights * unit, "the gradient with a random grad_output",
                        "ignores-grad-output", "multiply by grad_output: backward receives dLoss/dy and must "
                                               "return grad_output * dy/dx.")


def _own_gradient(RecomputeSiLU, x, grad_output):
    """The answer's own gradient at x's values for this grad_output, through autograd (a fresh leaf)."""
    leaf = x.detach().clone().requires_grad_(True)
    y = c.call(RecomputeSiLU.apply, leaf, what="RecomputeSiLU.forward")
    (grad,) = c.backward_grads(y, [leaf], grad_output.clone(), what="RecomputeSiLU.backward")
    if grad is None:
        c.fail("no-gradient", "RecomputeSiLU.apply(x) gave x no gradient: backward must return the gradient of x.")
    return grad


# (shape, seed) of x.
SILU_SAVED_CASES = (((2, 3, 4), 7), ((2, 3), 8), ((5,), 3), ((), 4))


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def silu_saves_the_least(RecomputeSiLU, cases=SILU_SAVED_CASES[:1]) -> None:
    """forward, called with a stand-in ctx, saves exactly x itself with save_for_backward and keeps no tensor on
    ctx; backward, called with that ctx, recomputes the right gradient from it."""
    c.require_function(RecomputeSiLU, SILU)
    for shape, seed in cases:
        _silu_saves_only_x(RecomputeSiLU, shape, seed)


def _silu_saves_only_x(RecomputeSiLU, shape, seed) -> None:
    x = c.randn(*shape, seed=seed)
    given, ctx = x.detach().clone(), behaviour.stand_in_ctx(SILU, (True,))
    with torch.no_grad():  # as_given: a forward that changed x (the values' rule) saved x itself, not a copy
        if c.uses_setup_context(RecomputeSiLU):  # forward(x) + setup_context(ctx, inputs, output)
            y = c.call(RecomputeSiLU.forward, x, what="RecomputeSiLU.forward", as_given=True)
            c.call(RecomputeSiLU.setup_context, ctx, (x,), y, what="RecomputeSiLU.setup_context")
        else:
            y = c.call(RecomputeSiLU.forward, ctx, x, what="RecomputeSiLU.forward", as_given=True)
    saved = tuple(ctx.saved_tensors)
    stashed = [where for where, _ in behaviour.on_ctx(ctx)]
    if not saved:
        c.fail("nothing-saved",
               "RecomputeSiLU saved no tensor with ctx.save_for_backward: save x (only x) and read it back in "
               "backward with ctx.saved_tensors. A tensor stored as a plain ctx attribute is invisible to "
               "autograd's bookkeeping.")
    names = [_describe(t, x, y) for t in saved]
    if names == ["a copy of x"]:
        c.fail("saves-a-copy",
               "RecomputeSiLU saved a copy of x, not x itself: the copy costs as much memory as x again, and "
               "autograd's version counter no longer protects x. Call ctx.save_for_backward(x) with x itself.")
    if names != ["x"]:
        kept = sum(t.numel() * t.element_size() for t in saved)
        what = ", ".join(dict.fromkeys(names))
        advice = "save only x and recompute sigmoid(x) in backward"
        if "the output" in names:
            advice += " (saving the output as well keeps a second tensor of x's size alive)"
        elif "sigmoid(x)" in names:
            advice += " (saving sigmoid(x) is exactly the memory this Function exists to avoid)"
        c.fail("saves-too-much",
               f"RecomputeSiLU saved {len(saved)} tensor(s) for backward ({what}): {kept} bytes for an input of "
               f"{x.numel() * x.element_size()} bytes. The point of recomputing is to keep only x: {advice}.")
    if stashed:
        c.fail("ctx-attribute",
               f"RecomputeSiLU.forward keeps a tensor as {stashed[0]}: that tensor stays alive until backward "
               "just like a saved one (so no memory is saved), and autograd cannot check it. Save only x with "
               "ctx.save_for_backward(x) and recompute sigmoid(x) in backward.")
    grad_out = c.randn(*shape, seed=seed + 1, requires_grad=False)
    try:  # the answer's own gradient under autograd; a backward that fails there is the values test's rule
        own = _own_gradient(RecomputeSiLU, given, grad_out)
    except Exception:  # noqa: BLE001 (named by the values test)
        own = None
    if own is not None:
        with torch.no_grad(), c.explained("RecomputeSiLU.backward", c.engine_rules()):
            grads = RecomputeSiLU.backward(ctx, grad_out.clone())  # its own copy: writing into it is the values'
        grad = grads[0] if isinstance(grads, (tuple, list)) else grads
        # What forward saved must rebuild the gradient: the same as the answer's own gradient under autograd
        # (whether that is right is the values test's), from x as it was given.
        c.require_close(grad, own, "backward called with the saved x", "wrong-derivative",
                        "backward must recompute everything it needs from the saved x.")
    _silu_real_node(RecomputeSiLU, shape, seed)


def _silu_real_node(RecomputeSiLU, shape, seed) -> None:
    """The same property in the node autograd made for RecomputeSiLU.apply(x) (`behaviour.real_node`, in the
    learner's process): it saved x itself and nothing else, and no other tensor made by the call is alive after it,
    wherever it is kept (on ctx at any depth, in a deque, in a global keyed by id(ctx)). A stand-in ctx can be
    recognised; the real node cannot be told from real use."""
    x = c.randn(*shape, seed=seed)
    facts = c.call(behaviour.real_node, RecomputeSiLU, (x,), what="RecomputeSiLU.apply(x)")
    c.require_own_node(facts["output"], RecomputeSiLU, SILU)
    lead = "Called directly, your forward saved only x; but under autograd (RecomputeSiLU.apply(x)) "
    if facts["unreadable"]:
        c.fail("kept-unreadable",
               f"{lead}it keeps a tensor alive ({facts['unreadable'][0]}) whose memory the grader cannot read (a "
               "tensor without storage of its own). Save only x with ctx.save_for_backward(x) and recompute "
               "sigmoid(x) in backward.")
    kinds = [s["kind"] for s in facts["saved"]]
    if kinds != ["input 0"]:
        names = ", ".join(dict.fromkeys(_real_name(s["kind"], s["tensor"], x) for s in facts["saved"])) or "nothing"
        code = "nothing-saved" if not kinds else "saves-a-copy" if kinds == ["copy of input 0"] else "saves-too-much"
        c.fail(code, f"{lead}its node saved {names}. The point of recomputing is to keep only x: call "
                     "ctx.save_for_backward(x) with x itself, whoever calls forward, and recompute sigmoid(x) in "
                     "backward.")
    if facts["kept"]:
        kept = facts["kept"][0]
        c.fail("ctx-attribute",
               f"{lead}it keeps {_real_name(kept['kind'], kept['tensor'], x)} alive until backward "
               f"({kept['where']}, {sum(k['nbytes'] for k in facts['kept'])} bytes in all): that tensor costs as "
               "much memory as a saved one, and autograd cannot check it. Save only x with "
               "ctx.save_for_backward(x) and recompute sigmoid(x) in backward.")


def _real_name(kind: str, tensor, x) -> str:
    if kind == "input 0":
        return "x"
    if kind == "output":
        return "the output"
    if kind in ("copy of input 0", "alias of input 0"):
        return "a copy of x" if kind.startswith("copy") else "a view of x"
    if tensor.shape == x.shape and bool(torch.allclose(tensor, torch.sigmoid(x.detach()))):
        return "sigmoid(x)"
    if tensor.shape == x.shape and bool(torch.allclose(tensor, x.detach() * torch.sigmoid(x.detach()))):
        return "the output's values"
    return f"a tensor of shape {tuple(tensor.shape)}"


# (seed, whether x is a leaf).
SILU_INPLACE_CASES = ((10, False), (10, True), (11, False), (11, True))

NO_CHANGE_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("error-without-change", error="inplace-error", message=
         "backward raised autograd's in-place error although nothing was changed in place: the version counter "
         "of the tensors saved with ctx.save_for_backward raises only when one of them has changed. Save x "
         "itself and let autograd do the checking.", types=(RuntimeError,)),
)


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def silu_inplace_detected(RecomputeSiLU, cases=SILU_INPLACE_CASES[:1]) -> None:
    """x goes through save_for_backward, so changing it in place before backward raises, and leaving it alone
    gives the right gradient: for a leaf input and a non-leaf input alike."""
    c.require_function(RecomputeSiLU, SILU)
    for seed, leaf in cases:
        if not _backward_runs(RecomputeSiLU, seed + 50, leaf):
            return  # a backward that fails on a call left alone: the values test's rule
        base, x = _silu_input(seed, leaf)
        # its own node: silu_graph's rule; as_given: the change below must reach what forward saved
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward", as_given=True)
        with torch.no_grad():
            x.add_(1.0)
        with c.explained("RecomputeSiLU.backward", (c.NOT_IMPLEMENTED,)):
            noticed = _raises_inplace_error(lambda: torch.autograd.grad(y, [base], torch.ones_like(y)))
        if not noticed:
            c.fail("not-saved-for-backward",
                   "changing x in place after forward went unnoticed, so backward recomputed the sigmoid from a "
                   "changed x: save x with ctx.save_for_backward(x) (x itself, not a copy) so autograd's version "
                   "counter catches it.")
        base, x = _silu_input(seed + 50, leaf)
        y = c.call(RecomputeSiLU.apply, x, what="RecomputeSiLU.forward")
        with c.explained("RecomputeSiLU.backward", NO_CHANGE_RULES):
            (grad,) = torch.autograd.grad(y, [base], torch.ones_like(y))
        c.require_close(grad, _own_gradient(RecomputeSiLU, base, torch.ones_like(base)),
                        "the gradient of RecomputeSiLU.apply(x).sum() with x unchanged", "wrong-derivative",
                        "with x left alone, backward must give the same gradient as for a fresh x of the same values.")


def _silu_input(seed: int, leaf: bool):
    base = c.randn(*SHAPES[1 + seed % (len(SHAPES) - 1)], seed=seed)
    return base, (base if leaf else base * 1.0)


def _backward_runs(RecomputeSiLU, seed: int, leaf: bool) -> bool:
    """Whether the answer's backward runs at all on a call left alone (any failure there is the values test's)."""
    base, x = _silu_input(seed, leaf)
    try:
        y = RecomputeSiLU.apply(x)
        torch.autograd.grad(y, [base], torch.ones_like(y))
    except Exception:  # noqa: BLE001 (named by the values test)
        return False
    return True
