"""A Function's own static methods, called by the judge as torch.func calls them (notebooks 10 and 10b; the
capstone's checks use the verdicts at the end): forward without ctx, setup_context on a stand-in ctx, backward (and
backward differentiated again), jvp in forward mode, the vmap rule. Each result is compared with a reference the
judge computes, and read again where autograd's own node is the ctx, so the points of the torch.func tests go to
the Function's methods, not to whatever its `apply` runs under a transform."""

from __future__ import annotations

import functools

import torch
import torch.func

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.torch_func.probes import dual_tangent
from autograder.checks.torch_func.rules import TWICE_HINT, direct, require_split_style, run


class VmapInfo(c.FakeCtx):
    """What vmap passes to a Function's own vmap staticmethod as `info`."""

    def __init__(self, batch_size: int):
        self.batch_size = batch_size
        self.randomness = "error"


def _autograd_grads(ref, x, args, g, v):
    """(the gradient for grad_output g, its derivative along v) of the reference, computed here."""
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (first,) = torch.autograd.grad(ref(leaf, *args), [leaf], g, create_graph=True)
        (second,) = torch.autograd.grad(first, [leaf], v)
    return first.detach(), second


# What require_own_methods judges of a Function's methods, by part: forward's value and history, backward's value
# (called directly and by autograd's node), backward differentiable again, jvp, the vmap rule.
ALL_PARTS = frozenset({"forward", "backward", "twice", "jvp", "vmap"})


def require_own_methods(Fn, name: str, x, ref, args: tuple = (), seed: int = 0, jvp: bool = False,
                        tolerance=(1e-7, 1e-9), dual: bool | None = None, parts=ALL_PARTS) -> None:
    """torch.func runs a Function through its own static methods: forward(x, *args) without ctx, setup_context,
    backward (differentiated again by grad of grad and hessian), jvp in forward mode, and its vmap rule.
    Here the judge calls each of them directly, on inputs of its own choosing (x, of a shape the other tests
    use too, and random grad_output, tangents and directions), and compares each result with the reference
    `ref(x, *args)` (torch operations) differentiated here. So the points of the torch.func tests go to the
    Function's methods, not to whatever the Function's `apply` runs under a transform.

    With `dual` (by default, whenever `jvp`), the same tangent also goes through `Fn.apply` in forward-mode AD
    with dual tensors, in the learner's process (the probe `dual_tangent`); notebook 10b turns it off where its
    tests rest on the direct calls alone.

    `parts` (of ALL_PARTS) names what this test judges: a test of one rule judges that rule's part only (the
    split style and setup_context always), so one mistake costs the points of its own rule. "twice" without
    "backward" asks only that backward's result has a history autograd can differentiate again (directly and
    under autograd), not that it is the reference's: whether backward is right is the "backward" part's rule."""
    parts = frozenset(parts)
    require_split_style(Fn, name)
    rtol, atol = tolerance
    sig = ", ".join(["x"] + [repr(a) for a in args])
    x = x.detach().clone().requires_grad_(True)
    expected = ref(x.detach(), *args)
    # forward, in grad mode: torch operations leave a history; NumPy, .item() and .tolist() do not
    out = direct(Fn.forward, x, *args, what=f"{name}.forward({sig}), called as torch.func calls it")
    if "forward" in parts:
        c.require_close(out, expected, f"{name}.forward({sig}) called directly", "wrong-forward", rtol=rtol,
                        atol=atol)
        require_history(out, f"{name}.forward({sig}), called directly on an x that requires grad")
    ctx = set_up(Fn, name, (x, *args), out)
    if parts & {"backward", "twice"}:
        _require_own_backward(Fn, name, x, ref, args, ctx, seed, (rtol, atol), "backward" in parts,
                              "twice" in parts)
    if jvp and "jvp" in parts:
        t = c.randn(*x.shape, seed=seed + 3, requires_grad=False, dtype=x.dtype)
        _, reference = torch.func.jvp(lambda u: ref(u, *args), (x.detach(),), (t,))
        tangent = own_jvp(Fn, name, ctx, (t,) + (None,) * len(args))
        c.require_close(tangent, reference, f"{name}.jvp(ctx, x_t) called directly", "wrong-jvp",
                        "jvp returns the output's tangent: the derivative times x_t, read from what setup_context "
                        "saved with ctx.save_for_forward.", rtol=rtol, atol=atol)
        if jvp if dual is None else dual:
            got = run(functools.partial(dual_tangent, Fn), x.detach(), t, args,
                      what=f"torch.autograd.forward_ad through {name}.apply")
            c.require_close(got, reference, f"the tangent of {name}.apply(x) under torch.autograd.forward_ad",
                            "wrong-jvp", "forward-mode AD calls your jvp: the derivative times x_t.",
                            rtol=rtol, atol=atol)
    # the vmap rule: generated from these methods, or the Function's own vmap staticmethod
    if "vmap" in parts and not bool(Fn.generate_vmap_rule):
        batch = torch.stack([x.detach(), 2 * x.detach()])
        result = direct(Fn.vmap, VmapInfo(2), (0,) + (None,) * len(args), batch, *args,
                        what=f"{name}.vmap(info, in_dims, x{', ...' if args else ''}), called as vmap calls it")
        got = batched_output(result, name)
        c.require_close(got, torch.stack([ref(b, *args) for b in batch]), f"{name}.vmap on a batch of two samples",
                        "wrong-vmap", "each sample must get its own result.", rtol=rtol, atol=atol)


def _require_own_backward(Fn, name, x, ref, args, ctx, seed, tolerance, value: bool, twice: bool) -> None:
    """backward called with the stand-in `ctx` and by the node autograd made for Fn.apply: the reference's gradient
    (if `value`), made of operations autograd can differentiate again (if `twice`: a history, and with `value`
    the reference's second derivative)."""
    rtol, atol = tolerance
    sig = ", ".join(["x"] + [repr(a) for a in args])
    g = c.randn(*ref(x.detach(), *args).shape, seed=seed + 1, requires_grad=False, dtype=x.dtype)
    v = c.randn(*x.shape, seed=seed + 2, requires_grad=False, dtype=x.dtype)
    first, second = _autograd_grads(ref, x, args, g, v)
    # a copy of g each time, as_given: a backward that writes into grad_output is another test's rule (Cube's values)
    grads = direct(Fn.backward, ctx, g.clone(), what=f"{name}.backward(ctx, grad_output)", as_given=True)
    grad = grads[0] if isinstance(grads, (tuple, list)) and grads else grads
    if value or not isinstance(grad, torch.Tensor):
        c.require_float64_kept(grad, first, f"{name}.backward(ctx, grad_output) called directly", "backward")
        c.require_close(grad, first, f"{name}.backward(ctx, grad_output) called directly", "wrong-derivative",
                        rtol=rtol, atol=atol)
    if twice and not grad.requires_grad:
        c.fail("not-twice-differentiable",
               f"{name}.backward, called directly with the x that setup_context saved (x requires grad), returned "
               "a gradient with no history: autograd cannot differentiate it again, and torch.func's grad of grad "
               "and hessian need to. " + TWICE_HINT)
    if twice and value:
        (again,) = direct(lambda: torch.autograd.grad(grad, [x], v, allow_unused=True), what=f"{name}.backward's "
                          "gradient, differentiated again")
        if again is None:
            again = torch.zeros_like(x)
        c.require_close(again.detach(), second, f"the derivative of {name}.backward's result with respect to x",
                        "not-twice-differentiable", TWICE_HINT, rtol=1e-6, atol=1e-9)
    # The same through the node autograd made for Fn.apply (the judge's double backward asks the learner's process
    # for it): a stand-in ctx can be recognised, the real node cannot.
    leaf = x.detach().clone().requires_grad_(True)
    real = direct(Fn.apply, leaf, *args, what=f"{name}.apply({sig})")
    (real_first,) = direct(lambda: torch.autograd.grad(real, [leaf], g.clone(), create_graph=True),
                           what=f"{name}.backward under autograd")
    if value:
        c.require_close(real_first, first, f"the gradient of {name}.apply({sig}) under autograd", "wrong-derivative",
                        rtol=rtol, atol=atol)
    if twice:
        require_history_under_autograd(real_first, name, TWICE_HINT)
    if twice and value:
        (real_again,) = direct(lambda: torch.autograd.grad(real_first, [leaf], v, allow_unused=True),
                               what=f"{name}.backward's gradient under autograd, differentiated again")
        real_again = torch.zeros_like(leaf) if real_again is None else real_again
        c.require_close(real_again.detach(), second, f"the second derivative of {name}.apply({sig}) under autograd",
                        "not-twice-differentiable", TWICE_HINT, rtol=1e-6, atol=1e-9)


def set_up(Fn, name: str, inputs: tuple, out):
    """A stand-in ctx after the learner's setup_context ran on it, in no-grad mode as autograd calls it."""
    ctx = behaviour.stand_in_ctx(name, tuple(isinstance(i, torch.Tensor) and i.requires_grad for i in inputs))
    with torch.no_grad():
        direct(Fn.setup_context, ctx, inputs, out, what=f"{name}.setup_context(ctx, inputs, output)")
    return ctx


def own_jvp(Fn, name: str, ctx, tangents: tuple):
    """The learner's jvp, called as forward mode calls it: on what setup_context saved with save_for_forward,
    one tangent per input of forward (None for an input that is not a tensor), in no-grad mode."""
    spelled = ", ".join("None" if t is None else f"t{k + 1}" for k, t in enumerate(tangents))
    with torch.no_grad():
        return direct(Fn.jvp, ctx.forward_mode(), *tangents,
                      what=f"{name}.jvp(ctx, {spelled}), called as forward mode calls it")


# ---------------------------------------------------------------- verdicts the capstone's checks share

def require_history(out, what: str) -> None:
    """`out`, the result of a forward called directly on an x that requires grad, has a history."""
    if not out.requires_grad:
        c.fail("leaves-torch",
               f"{what} returned a tensor with no history: it leaves torch (NumPy, .item(), .tolist()) or detaches. "
               "Under torch.func your forward runs on wrapped tensors (batched ones, with generate_vmap_rule): write "
               "it with torch operations.")


def require_history_under_autograd(grad, name: str, hint: str) -> None:
    """`grad`, backward's result when autograd's own node is its ctx, has a history (called directly it had)."""
    if not grad.requires_grad:
        c.fail("not-twice-differentiable",
               f"Called directly, {name}.backward returned a gradient autograd can differentiate again; but under "
               f"autograd ({name}.apply) it has no history: your backward takes another path when autograd calls "
               "it. " + hint)


def batched_output(result, name: str):
    """The output of a vmap staticmethod called on a batch on dimension 0, which must return (output, 0)."""
    got, dims = result if isinstance(result, (tuple, list)) and len(result) == 2 else (result, None)
    if not isinstance(got, torch.Tensor) or dims not in (0, (0,), [0]):
        c.fail("wrong-vmap", f"{name}.vmap must return (the batched output, its out_dims), here "
                             "(tensor, 0) for a batch on dimension 0.")
    return got
