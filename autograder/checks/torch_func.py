"""Checks for notebooks 10 (torch.func: vmap, grad, jacrev) and 10b (forward mode: jvp, jacfwd, hessian).

- `Cube.apply(x)` returns x ** 3. Written in the torch.func style: `forward(x)` without ctx, a separate
  `setup_context(ctx, inputs, output)`, `generate_vmap_rule = True`, and a backward made of differentiable
  torch operations, so it works under `torch.func.vmap`, `grad` and `jacrev`, and twice.
- `Softplus.apply(x)` returns log(1 + exp(x)), finite and accurate for |x| up to 1e4 (no overflow, no NaN), in
  the same style plus a `jvp(ctx, x_t)` staticmethod reading what setup_context saved with
  `ctx.save_for_forward`, so it works under `torch.func.jvp`, `jacfwd`, `hessian` and `vmap` too. The trusted
  reference is torch.nn.functional.softplus (its derivative torch.sigmoid), bound when this module is imported.
  How forward computes the value is free (F.softplus itself is fine): the lesson is the methods around it.
- `ScaledProduct.apply(x, y, alpha)` returns alpha * x * y for tensors x, y of one shape and a float alpha, with a
  `jvp(ctx, x_t, y_t, alpha_t)` that adds both tangents' terms (on torch 2.13 forward mode passes zeros for a
  tensor input without a tangent and None for the float) and a backward that returns None for alpha.
- `RunningSum.apply(x)` returns the cumulative sum along the last dimension, computed by NumPy, with a `vmap`
  staticmethod (`generate_vmap_rule` cannot batch a NumPy kernel) that moves the batch dimension where the kernel
  treats it as a batch, wherever vmap put it.

Each check takes `cases=`: its default is what the visible test cell runs, the module's `*_CASES` tables are what
the hidden tests run. A case is a tuple whose first item names what it checks.

When grading, the learner's names are proxies here (autograder/engine/sandbox/proxy.py): calls, gradients, gradcheck and
gradgradcheck go through them, and so do the direct calls of a Function's own static methods (`forward`,
`setup_context`, `backward`, `jvp`, `vmap`) with a stand-in ctx and inputs the judge chose, whose results are
compared here with references computed here. torch.func transforms need the real objects: those run in the
learner's process, in the probes `transformed` and `dual_tangent`, which return only the tensors they computed;
only the tests of Cube's vmap and grad and Softplus's jacfwd and vmap read them. Forward-mode gradcheck
(`check_forward_ad=True`) cannot run over a proxy (its node in the judge has no jvp): the judge checks `jvp`
directly instead, against the reference's Jacobian-vector product and against central differences of `apply`.
"""

from __future__ import annotations

import functools

import torch
import torch.func
import torch.nn.functional as F

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.explain import Rule, literal


CUBE = "Cube"
CUBE_SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
CUBE_HINT = "d(x**3)/dx = 3 * x**2, times grad_output."
TWICE_HINT = ("Build backward from differentiable torch operations on the saved tensors (grad_output * 3 * x ** 2): "
              "no .detach(), no NumPy, no torch.no_grad(), no @once_differentiable, so autograd can "
              "differentiate your backward again.")

SETUP_CONTEXT_MSG = "must override the setup_context staticmethod"
VMAP_RULE_MSG = "does not have vmap support"
NO_STORAGE_MSG = "Cannot access data pointer of Tensor that doesn't have storage"
NO_JVP_MSG = "You must implement the jvp function"
NO_SETUP_MSG = "setup_context is not implemented"
NO_VMAP_MSG = "override the vmap staticmethod or set generate_vmap_rule=True"
ANY_ERROR = (RuntimeError, TypeError, ValueError, IndexError)


# --------------------------------------------------------------------------------- torch.func feedback

# What torch.func (and a Function's own methods under it) raise, in plain words.
FUNC_RULES = (
    Rule("no-setup-context", SETUP_CONTEXT_MSG,
         f"{{what}}: torch.func refused your Function (\"{SETUP_CONTEXT_MSG}\"). Its forward takes ctx: write "
         "forward(x) without ctx, and save what backward needs in a separate @staticmethod "
         "setup_context(ctx, inputs, output).", types=ANY_ERROR),
    Rule("no-vmap-rule", VMAP_RULE_MSG,
         "{what}: vmap does not know how to batch your Function (jacfwd and hessian batch with vmap too). Add the "
         "class attribute generate_vmap_rule = True (vmap then runs your methods on batched tensors itself).",
         types=ANY_ERROR),
    Rule("leaves-torch", NO_STORAGE_MSG,
         "{what}: your forward or backward leaves torch (NumPy, .item(), .tolist()). Under torch.func the tensors "
         "are wrappers without storage of their own: write both methods with torch operations.", types=ANY_ERROR),
    Rule("leaves-torch", "expected np.ndarray",
         "{what}: your Function uses NumPy (torch.from_numpy received a NumPy scalar, which NumPy returns for a 0-d "
         "input). Write forward and backward with torch operations: they must also run under torch.func, where "
         "NumPy cannot run at all.", types=ANY_ERROR),
    Rule("jvp-none-tangent", r"unsupported operand type\(s\) for .*NoneType|NoneType' object has no attribute",
         "{what} raised {kind}: {line}. Forward mode passes None as the tangent of every argument of forward that is "
         "not a tensor (a float such as alpha has no tangent: it is a constant), and, on torch 2.13, zeros for a "
         "tensor input that has no tangent. Leave None tangents out of the sum.", types=(TypeError, AttributeError)),
    Rule("wrong-signature", "positional argument",
         "{what} raised TypeError: {text}. In the torch.func style forward takes only the inputs (forward(x), no "
         "ctx), setup_context takes (ctx, inputs, output), backward takes (ctx, grad_output), jvp takes "
         "(ctx, x_t): one tangent per input of forward, non-tensor inputs included.", types=(TypeError,)),
    Rule("nothing-saved", r"got 0\)",
         "{what}: ctx.saved_tensors was empty where your Function read it ({kind}: {text}). Each direction has its "
         "own saved tensors: jvp sees only what setup_context saved with ctx.save_for_forward(...), backward only "
         "what it saved with ctx.save_for_backward(...). Save the input tensors with both.", types=(ValueError,)),
    Rule("nothing-saved", "tuple index out of range",
         "{what}: ctx.saved_tensors was empty where your Function read it ({kind}: {text}). Each direction has its "
         "own saved tensors: jvp sees only what setup_context saved with ctx.save_for_forward(...), backward only "
         "what it saved with ctx.save_for_backward(...). Save the input tensors with both.", types=(IndexError,)),
)

TRANSFORM_RULES = (
    Rule("no-jvp", NO_JVP_MSG,
         "forward-mode AD (torch.func.jvp, jacfwd, hessian) needs a jvp staticmethod, and your Function has none "
         f"(\"{NO_JVP_MSG} for custom autograd.Function to use it with forward mode AD\"). Add @staticmethod "
         "jvp(ctx, x_t) returning the output's tangent: the derivative times x_t.", types=(NotImplementedError,)),
)

# A static method the judge called itself: what autograd and torch.func would have said, in plain words.
DIRECT_RULES = (
    Rule("no-setup-context", NO_SETUP_MSG,
         "{what}: your Function has no setup_context (\"{text}\"). torch.func calls forward(x) without ctx, then "
         "@staticmethod setup_context(ctx, inputs, output), where you save what backward and jvp need.",
         types=(NotImplementedError,)),
    Rule("no-jvp", NO_JVP_MSG,
         "{what}: your Function has no jvp (\"{text}\"). Forward mode (torch.func.jvp, jacfwd, hessian) calls "
         "@staticmethod jvp(ctx, *input_tangents), which returns the output's tangent.", types=(NotImplementedError,)),
    Rule("no-vmap-rule", NO_VMAP_MSG,
         "{what}: vmap does not know how to batch your Function (\"{text}\"). Add the class attribute "
         "generate_vmap_rule = True (vmap then runs your methods on batched tensors itself).",
         types=(NotImplementedError,)),
) + c.ENGINE_RULES + FUNC_RULES


def _run(fn, *args, what: str):
    """Call learner code (directly or through a torch.func transform) with plain feedback on failure."""
    with c.explained(what, FUNC_RULES):
        return c.call(fn, *args, what=what)


@c.probe
def transformed(Fn, how: str, x, args: tuple = (), weight=None, in_dims: int = 0, summed: bool = True,
                tangent=None):
    """In the learner's process (torch.func transforms the real Function, never a proxy of it): the transform
    `how` of f(t) = Fn.apply(t, *args), evaluated at x (`apply` as torch.autograd.Function defines it, so the
    transform runs Fn's own methods). Only the tensors it computes come back.

    how: "vmap" (with in_dims), "grad" (of f(t).sum(), or of (f(t) * weight).sum(); with summed=False, of f(t)
    itself), "vmap(grad)" (per-sample gradients), "grad(grad)" (the second derivative of f(t).sum(), summed),
    "jacrev", "jvp" (the pair (f(x), J tangent)), "vmap(jvp)" (per-sample, x and tangent batched on dim 0),
    "jacfwd", "hessian" (of the same scalar as "grad").
    """

    def f(t):
        return behaviour.function_apply(Fn, t, *args)

    def scalar(t):
        if not summed:
            return f(t)
        return f(t).sum() if weight is None else (f(t) * weight).sum()

    if how == "vmap":
        return torch.func.vmap(f, in_dims=in_dims)(x)
    if how == "grad":
        return torch.func.grad(scalar)(x)
    if how == "vmap(grad)":
        return torch.func.vmap(torch.func.grad(scalar))(x)
    if how == "grad(grad)":
        return torch.func.grad(lambda t: torch.func.grad(scalar)(t).sum())(x)
    if how == "jacrev":
        return torch.func.jacrev(f)(x)
    if how == "jvp":
        return tuple(torch.func.jvp(f, (x,), (tangent,)))
    if how == "vmap(jvp)":
        return torch.func.vmap(lambda a, b: torch.func.jvp(f, (a,), (b,))[1])(x, tangent)
    if how == "jacfwd":
        return torch.func.jacfwd(f)(x)
    if how == "hessian":
        return torch.func.hessian(scalar)(x)
    raise ValueError(f"unknown transform {how!r}")


def _transform(Fn, how, x, options):
    with c.explained("torch.func", TRANSFORM_RULES):
        return transformed(Fn, how, x, **options)


def under_func(Fn, how: str, x, what: str, **options):
    """`transformed(Fn, how, x, **options)` with plain feedback on failure (see `_run`)."""
    return _run(functools.partial(_transform, Fn, how, options=options), x, what=what)


def _gradchecked(fn, inputs, what, hint, second=False):
    with c.explained(what, FUNC_RULES):
        if second:
            c.gradgradcheck(fn, inputs, what, hint=hint)
        else:
            c.gradcheck(fn, inputs, what, hint=hint)


# ------------------------------------------------------------------- the static methods, called directly

def _direct(fn, *args, what: str, rules=DIRECT_RULES):
    """One of the learner's static methods called by the judge, with plain feedback on failure."""
    snapshots = c._snapshot_inputs(args)
    with c.explained(what, rules):
        result = fn(*args)
    c._require_inputs_unchanged(snapshots, what)
    return result


class _VmapInfo(c.FakeCtx):
    """What vmap passes to a Function's own vmap staticmethod as `info`."""

    def __init__(self, batch_size: int):
        self.batch_size = batch_size
        self.randomness = "error"


def _reference_grads(ref, x, args, g, v):
    """(the gradient for grad_output g, its derivative along v) of the reference, computed here."""
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (first,) = torch.autograd.grad(ref(leaf, *args), [leaf], g, create_graph=True)
        (second,) = torch.autograd.grad(first, [leaf], v)
    return first.detach(), second


def _require_split_style(Fn, name: str) -> None:
    if not c.uses_setup_context(Fn):
        c.fail("no-setup-context",
               f"{name} has no setup_context, so torch.func refuses it (\"{SETUP_CONTEXT_MSG}\"): write "
               "forward(x) without ctx, and save what backward needs in a separate @staticmethod "
               "setup_context(ctx, inputs, output).")


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
    _require_split_style(Fn, name)
    rtol, atol = tolerance
    sig = ", ".join(["x"] + [repr(a) for a in args])
    x = x.detach().clone().requires_grad_(True)
    expected = ref(x.detach(), *args)
    # forward, in grad mode: torch operations leave a history; NumPy, .item() and .tolist() do not
    out = _direct(Fn.forward, x, *args, what=f"{name}.forward({sig}), called as torch.func calls it")
    if "forward" in parts:
        c.require_close(out, expected, f"{name}.forward({sig}) called directly", "wrong-forward", rtol=rtol,
                        atol=atol)
        if not out.requires_grad:
            c.fail("leaves-torch",
                   f"{name}.forward({sig}), called directly on an x that requires grad, returned a tensor with no "
                   "history: it leaves torch (NumPy, .item(), .tolist()) or detaches. Under torch.func your forward "
                   "runs on wrapped tensors (batched ones, with generate_vmap_rule): write it with torch operations.")
    ctx = _set_up(Fn, name, (x, *args), out)
    if parts & {"backward", "twice"}:
        _require_own_backward(Fn, name, x, ref, args, ctx, seed, (rtol, atol), "backward" in parts,
                              "twice" in parts)
    if jvp and "jvp" in parts:
        t = c.randn(*x.shape, seed=seed + 3, requires_grad=False, dtype=x.dtype)
        _, reference = torch.func.jvp(lambda u: ref(u, *args), (x.detach(),), (t,))
        tangent = _own_jvp(Fn, name, ctx, (t,) + (None,) * len(args))
        c.require_close(tangent, reference, f"{name}.jvp(ctx, x_t) called directly", "wrong-jvp",
                        "jvp returns the output's tangent: the derivative times x_t, read from what setup_context "
                        "saved with ctx.save_for_forward.", rtol=rtol, atol=atol)
        if jvp if dual is None else dual:
            got = _run(functools.partial(dual_tangent, Fn), x.detach(), t, args,
                       what=f"torch.autograd.forward_ad through {name}.apply")
            c.require_close(got, reference, f"the tangent of {name}.apply(x) under torch.autograd.forward_ad",
                            "wrong-jvp", "forward-mode AD calls your jvp: the derivative times x_t.",
                            rtol=rtol, atol=atol)
    # the vmap rule: generated from these methods, or the Function's own vmap staticmethod
    if "vmap" in parts and not bool(Fn.generate_vmap_rule):
        batch = torch.stack([x.detach(), 2 * x.detach()])
        result = _direct(Fn.vmap, _VmapInfo(2), (0,) + (None,) * len(args), batch, *args,
                         what=f"{name}.vmap(info, in_dims, x{', ...' if args else ''}), called as vmap calls it")
        got, dims = result if isinstance(result, (tuple, list)) and len(result) == 2 else (result, None)
        if not isinstance(got, torch.Tensor) or dims not in (0, (0,), [0]):
            c.fail("wrong-vmap", f"{name}.vmap must return (the batched output, its out_dims), here "
                                 "(tensor, 0) for a batch on dimension 0.")
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
    first, second = _reference_grads(ref, x, args, g, v)
    grads = _direct(Fn.backward, ctx, g, what=f"{name}.backward(ctx, grad_output)")
    grad = grads[0] if isinstance(grads, (tuple, list)) and grads else grads
    if value or not isinstance(grad, torch.Tensor):
        c.require_close(grad, first, f"{name}.backward(ctx, grad_output) called directly", "wrong-derivative",
                        rtol=rtol, atol=atol)
    if twice and not grad.requires_grad:
        c.fail("not-twice-differentiable",
               f"{name}.backward, called directly with the x that setup_context saved (x requires grad), returned "
               "a gradient with no history: autograd cannot differentiate it again, and torch.func's grad of grad "
               "and hessian need to. " + TWICE_HINT)
    if twice and value:
        (again,) = _direct(lambda: torch.autograd.grad(grad, [x], v, allow_unused=True), what=f"{name}.backward's "
                           "gradient, differentiated again")
        if again is None:
            again = torch.zeros_like(x)
        c.require_close(again.detach(), second, f"the derivative of {name}.backward's result with respect to x",
                        "not-twice-differentiable", TWICE_HINT, rtol=1e-6, atol=1e-9)
    # The same through the node autograd made for Fn.apply (the judge's double backward asks the learner's process
    # for it): a stand-in ctx can be recognised, the real node cannot.
    leaf = x.detach().clone().requires_grad_(True)
    real = _direct(Fn.apply, leaf, *args, what=f"{name}.apply({sig})")
    (real_first,) = _direct(lambda: torch.autograd.grad(real, [leaf], g, create_graph=True),
                            what=f"{name}.backward under autograd")
    if value:
        c.require_close(real_first, first, f"the gradient of {name}.apply({sig}) under autograd", "wrong-derivative",
                        rtol=rtol, atol=atol)
    if twice and not real_first.requires_grad:
        c.fail("not-twice-differentiable",
               f"Called directly, {name}.backward returned a gradient autograd can differentiate again; but under "
               f"autograd ({name}.apply) it has no history: your backward takes another path when autograd calls "
               "it. " + TWICE_HINT)
    if twice and value:
        (real_again,) = _direct(lambda: torch.autograd.grad(real_first, [leaf], v, allow_unused=True),
                                what=f"{name}.backward's gradient under autograd, differentiated again")
        real_again = torch.zeros_like(leaf) if real_again is None else real_again
        c.require_close(real_again.detach(), second, f"the second derivative of {name}.apply({sig}) under autograd",
                        "not-twice-differentiable", TWICE_HINT, rtol=1e-6, atol=1e-9)


def _set_up(Fn, name: str, inputs: tuple, out):
    """A stand-in ctx after the learner's setup_context ran on it, in no-grad mode as autograd calls it."""
    ctx = behaviour.stand_in_ctx(name, tuple(isinstance(i, torch.Tensor) and i.requires_grad for i in inputs))
    with torch.no_grad():
        _direct(Fn.setup_context, ctx, inputs, out, what=f"{name}.setup_context(ctx, inputs, output)")
    return ctx


def _own_jvp(Fn, name: str, ctx, tangents: tuple):
    """The learner's jvp, called as forward mode calls it: on what setup_context saved with save_for_forward,
    one tangent per input of forward (None for an input that is not a tensor), in no-grad mode."""
    spelled = ", ".join("None" if t is None else f"t{k + 1}" for k, t in enumerate(tangents))
    with torch.no_grad():
        return _direct(Fn.jvp, ctx.forward_mode(), *tangents,
                       what=f"{name}.jvp(ctx, {spelled}), called as forward mode calls it")


@c.probe
def dual_tangent(Fn, x, t, args: tuple = ()):
    """In the learner's process: the output tangent of Fn.apply(x, *args) for the tangent t, in forward-mode AD
    with dual tensors (torch.autograd.forward_ad, no torch.func transform)."""
    import torch.autograd.forward_ad as fwad

    with fwad.dual_level():
        out = behaviour.function_apply(Fn, fwad.make_dual(x, t), *args)
        tangent = fwad.unpack_dual(out).tangent if isinstance(out, torch.Tensor) else None
    if tangent is None:
        raise RuntimeError(f"{getattr(Fn, '__name__', 'the Function')}.apply gave no tangent under forward_ad")
    return tangent


@c.probe
def dual_tangents(Fn, inputs: tuple, tangents: tuple):
    """In the learner's process: the output tangent of Fn.apply(*inputs) in forward-mode AD, each input with a
    tangent (None: none) made a dual tensor (torch.autograd.forward_ad, no torch.func transform)."""
    import torch.autograd.forward_ad as fwad

    with fwad.dual_level():
        duals = [x if t is None else fwad.make_dual(x, t) for x, t in zip(inputs, tangents)]
        out = behaviour.function_apply(Fn, *duals)
        tangent = fwad.unpack_dual(out).tangent if isinstance(out, torch.Tensor) else None
    if tangent is None:
        raise RuntimeError(f"{getattr(Fn, '__name__', 'the Function')}.apply gave no tangent under forward_ad")
    return tangent


@c.probe
def without_storage(Fn, shape) -> str:
    """In the learner's process: Fn's setup_context and backward called directly on tensors without storage (the
    meta device; an elementwise Function's output of x's shape), as torch.func's wrappers have none (grad runs
    backward on them). The error they raised, or "" (and "" for a Function not in the split style)."""
    if not c.uses_setup_context(Fn):
        return ""
    x = torch.empty(shape, dtype=F64, device="meta", requires_grad=True)
    out = torch.empty(shape, dtype=F64, device="meta")
    try:
        ctx = c.FakeCtx((True,))
        with torch.no_grad():
            Fn.setup_context(ctx, (x,), out)
        Fn.backward(ctx, torch.empty_like(out))
    except Exception as error:  # noqa: BLE001 - reported, in words
        return f"{type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}"
    return ""


def _require_storage_free(Fn, name: str, shape) -> None:
    """backward runs on tensors without storage, as under torch.func.grad (a Function that detects the transforms'
    wrappers and takes another path does not see one in a meta tensor)."""
    error = _run(functools.partial(without_storage, Fn), shape, what=f"{name}.backward on tensors without storage")
    if error:
        c.fail("leaves-torch",
               f"{name}.backward, called on tensors without storage (as torch.func's wrappers are), raised {error}: "
               "it leaves torch (NumPy, .item(), .tolist()), which torch.func.grad cannot run.")


# ---------------------------------------------------------------------------------------------- Cube
# A case is ("values",), ("gradcheck", seed, shape), ("gradgradcheck", seed, shape), ("vmap", seed, shape,
# in_dims), ("grad", seed, shape), ("vmap(grad)", seed, shape), ("jacobian", seed, shape), ("storage", shape)
# or ("methods", seed, shape, parts): Cube's own methods called directly (see require_own_methods), judged on the
# parts (space-separated) of the test's own rule.

def _cube_methods(Cube, seed: int, shape, parts: str = " ".join(sorted(ALL_PARTS))) -> None:
    if parts == "twice" and not c.uses_setup_context(Cube):
        return  # the style is the transforms' rule; gradgradcheck judges a ctx-style backward through autograd
    require_own_methods(Cube, CUBE, c.randn(*shape, seed=seed, requires_grad=False), lambda t: t ** 3, seed=seed,
                        parts=parts.split())


def _cube_storage(Cube, shape) -> None:
    _require_split_style(Cube, CUBE)
    _require_storage_free(Cube, CUBE, shape)


def _cube_values(Cube) -> None:
    c.require_self_contained(Cube, CUBE)
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    y = _run(Cube.apply, x, what="Cube.apply(x)")
    c.require_close(y, x.detach() ** 3, "Cube.apply(x)", "wrong-forward", "forward should return x ** 3.")
    (grad,) = _run(c.backward_grads, y, [x], torch.full_like(y, 2.0), what="Cube.backward")
    c.require_close(grad, 6 * x.detach() ** 2, "the gradient of Cube.apply(x) with grad_output = 2",
                    "wrong-derivative", CUBE_HINT)


def _cube_gradcheck(Cube, seed, shape, second=False) -> None:
    x = c.randn(*shape, seed=seed)
    _gradchecked(Cube.apply, (x,), f"Cube on shape {shape}", TWICE_HINT if second else CUBE_HINT, second=second)


def _cube_vmap(Cube, seed, shape, in_dims) -> None:
    xb = c.randn(*shape, seed=seed, requires_grad=False)
    label = "torch.func.vmap(Cube.apply" + (f", in_dims={in_dims})" if in_dims else ")")
    out = under_func(Cube, "vmap", xb, in_dims=in_dims, what=label)
    expected = torch.stack([xi ** 3 for xi in xb.unbind(in_dims)]) if xb.dim() else xb ** 3
    c.require_close(out, expected, f"{label}(x) for x of shape {tuple(xb.shape)}", "wrong-vmap",
                    "each sample must be cubed.")


def _cube_eager_grad(Cube, x, w):
    """Cube's own gradient of (Cube.apply(x) * w).sum() through ordinary autograd: what a transform must give
    (whether it is 3 x**2 w is cube_values' rule)."""
    leaf = x.detach().clone().requires_grad_(True)
    y = _run(Cube.apply, leaf, what="Cube.apply(x)")
    (grad,) = _run(c.backward_grads, y, [leaf], w, what="Cube.backward")
    return grad


SAME_AS_EAGER = ("it differs from the gradient your Function gives through ordinary autograd: under torch.func "
                 "your methods run on wrapped tensors, and must compute the same there.")


def _cube_grad(Cube, seed, shape) -> None:
    x = c.randn(*shape, seed=seed, requires_grad=False)
    w = c.randn(*shape, seed=seed + 100, requires_grad=False)
    g = under_func(Cube, "grad", x, weight=w, what="torch.func.grad(lambda t: (Cube.apply(t) * w).sum())")
    c.require_close(g, _cube_eager_grad(Cube, x, w), f"torch.func.grad of (Cube.apply(x) * w).sum() for shape "
                    f"{shape}", "wrong-derivative", SAME_AS_EAGER)


def _cube_per_sample_grad(Cube, seed, shape) -> None:
    xb = c.randn(*shape, seed=seed, requires_grad=False)
    g = under_func(Cube, "vmap(grad)", xb, what="vmap(grad(...)) through Cube")
    c.require_close(g, _cube_eager_grad(Cube, xb, torch.ones_like(xb)),  # elementwise: per sample = whole batch
                    "per-sample gradients vmap(grad(lambda t: Cube.apply(t).sum()))(x)", "wrong-derivative",
                    SAME_AS_EAGER)


def _cube_jacobian(Cube, seed, shape) -> None:
    """The Jacobian jacrev builds, one row per output entry from backward, built here row by row through Cube."""
    x = c.randn(*shape, seed=seed)
    rows = []
    for e in torch.eye(x.numel(), dtype=x.dtype):   # one backward per output entry, as jacrev's rows
        y = _run(Cube.apply, x, what="Cube.apply(x)")
        (row,) = _run(c.backward_grads, y, [x], e.reshape(y.shape), what="Cube.backward")
        rows.append(row if row is not None else torch.zeros_like(x))
    jac = torch.stack(rows).reshape(tuple(x.shape) * 2)
    expected = torch.diag((3 * x.detach() ** 2).reshape(-1)).reshape(tuple(x.shape) * 2)
    c.require_close(jac, expected, f"the Jacobian of Cube.apply(x) for x of shape {shape}, row by row from backward",
                    "wrong-jacobian", "the Jacobian of an elementwise cube is diag(3 * x**2).")


CUBE_CASE_CHECKS = {"values": _cube_values, "gradcheck": _cube_gradcheck, "methods": _cube_methods,
                    "storage": _cube_storage,
                    "gradgradcheck": functools.partial(_cube_gradcheck, second=True), "vmap": _cube_vmap,
                    "grad": _cube_grad, "vmap(grad)": _cube_per_sample_grad, "jacobian": _cube_jacobian}


def _cube_cases(Cube, cases) -> None:
    c.require_function(Cube, CUBE)
    for kind, *params in cases:
        CUBE_CASE_CHECKS[kind](Cube, *params)


CUBE_VALUES_CASES = (("values",),) + tuple(("gradcheck", seed, shape) for seed in (0, 1, 2) for shape in CUBE_SHAPES)
# Each test's methods case judges its own rule's part: gradgradcheck a backward autograd can differentiate again,
# vmap a forward in torch operations and a vmap rule, grad the split style and methods that run without storage
# (its values are compared with the Function's own ordinary gradient), jacrev backward's values.
CUBE_GRADGRAD_CASES = (("gradgradcheck", 10, (3,)), ("gradgradcheck", 11, (2, 3)), ("gradgradcheck", 10, (2, 3, 4)),
                       ("methods", 14, (2, 3), "twice"), ("methods", 16, (5,), "twice"))
CUBE_VMAP_CASES = (("vmap", 20, (5, 3), 0), ("vmap", 21, (6,), 0), ("vmap", 22, (3, 4, 2), 1),
                   ("methods", 24, (3,), "forward vmap"))
CUBE_GRAD_CASES = (("grad", 30, (4,)), ("grad", 31, (2, 3)), ("vmap(grad)", 32, (4, 3)), ("methods", 34, (4,), ""),
                   ("storage", (2, 3)))
CUBE_JACREV_CASES = (("jacobian", 41, (2, 3)), ("jacobian", 44, (1,)), ("methods", 43, (2, 3, 4), "backward"))


def cube_values(Cube, cases=(("values",),)) -> None:
    """Values and the gradient of a small example, through ordinary autograd (the table: float64 gradcheck over
    several shapes and seeds)."""
    _cube_cases(Cube, cases)


def cube_gradgradcheck(Cube, cases=(("gradgradcheck", 10, (3,)), ("methods", 15, (2, 3), "twice"))) -> None:
    """Second derivatives, in the judge: gradgradcheck, and backward called directly, then differentiated."""
    _cube_cases(Cube, cases)


def cube_vmap(Cube, cases=(("vmap", 23, (4, 3), 0), ("methods", 25, (2, 3), "forward vmap"))) -> None:
    """torch.func.vmap(Cube.apply) (a probe) equals x ** 3 sample by sample; the table adds other shapes and
    in_dims."""
    _cube_cases(Cube, cases)


def cube_func_grad(Cube, cases=(("grad", 33, (3,)), ("methods", 35, (3,), ""), ("storage", (3,)))) -> None:
    """torch.func.grad (a probe) of a weighted sum through Cube is Cube's own ordinary gradient, and its methods
    run on tensors without storage (a probe); the table adds shapes and per-sample gradients (vmap of grad)."""
    _cube_cases(Cube, cases)


def cube_jacrev(Cube, cases=(("jacobian", 40, (4,)), ("methods", 42, (4,), "backward"))) -> None:
    """What torch.func.jacrev(Cube.apply) needs of Cube, verified in the judge: the Jacobian diag(3x^2) row by row
    from backward, and Cube's own backward called directly (split style, the right gradient)."""
    _cube_cases(Cube, cases)


# ------------------------------------------------------------------------------------------ Softplus
# A case is ("points", values, dtype, grad_output) (None: ones), ("random", seed, shape, scale), ("gradcheck",
# seed, shape, scale), ("jvp", x values or (seed, shape), tangent seed), ("jacfwd", ...), ("dual", seed, shape),
# ("hessian", x, weight seed or None), ("gradgradcheck", seed, shape), ("vmap", seed, shape, in_dims),
# ("vmap(jvp)", seed, shape) or ("methods", seed, shape, with jvp).

SOFTPLUS = "Softplus"
DERIVATIVE_HINT = ("d softplus(x)/dx = exp(x) / (1 + exp(x)) = sigmoid(x): compute it with torch.sigmoid(x), which "
                   "never overflows.")
STABLE_HINT = ("exp(x) overflows to inf above x = 88 in float32 and x = 709 in float64, and log(1 + exp(x)) with it. "
               "Rewrite softplus so that exp only ever sees a number <= 0: take the larger term out of the log, as "
               "the log-sum-exp trick of notebook 07 does (log(1 + exp(x)) = log(exp(0) + exp(x))).")
TANGENT_HINT = ("jvp(ctx, x_t) receives the input's tangent x_t and returns the output's tangent: the derivative "
                "sigmoid(x) times the tangent, with x read from ctx.saved_tensors (saved in setup_context with "
                "ctx.save_for_forward(x)).")
SOFTPLUS_TWICE_HINT = ("torch.func.hessian is jacfwd(jacrev(f)): it differentiates the operations of your backward "
                       "in forward mode. Build backward from differentiable torch operations on the saved x "
                       "(grad_output * torch.sigmoid(x)): no .detach(), no NumPy, no torch.no_grad().")
SOFTPLUS_SHAPES = [(), (4,), (2, 3), (2, 3, 4)]
EXTREMES = (-1e4, -800.0, -40.0, -0.0, 40.0, 800.0, 1e4)
F64, F32 = torch.float64, torch.float32


def _tolerance(dtype):
    """(rtol, atol) against F.softplus, whose threshold (x > 20 returns x) is itself off by at most exp(-20)."""
    return (1e-9, 1e-12) if dtype == torch.float64 else (1e-5, 1e-7)


def _bad_entries(tensor, x) -> str:
    """The inputs at which `tensor` is inf or NaN, in words."""
    bad = ~torch.isfinite(tensor.detach())
    values = sorted({float(v) for v in x.detach()[bad].reshape(-1)})[:4]
    kinds = sorted({"NaN" if v != v else "inf" for v in tensor.detach()[bad].reshape(-1).tolist()})
    return f"{' and '.join(kinds)} at x = {', '.join(f'{v:g}' for v in values)}"


def _require_softplus(y, x, what: str) -> None:
    if isinstance(y, torch.Tensor) and tuple(y.shape) == tuple(x.shape) and not bool(torch.isfinite(y.detach()).all()):
        c.fail("overflow", f"{what} is {_bad_entries(y, x)}: {STABLE_HINT}")
    rtol, atol = _tolerance(x.dtype)
    c.require_close(y, F.softplus(x.detach()), what, "wrong-forward",
                    "forward should return log(1 + exp(x)) (compare with torch.nn.functional.softplus).",
                    rtol=rtol, atol=atol)


def _require_derivative(got, x, scale, what: str, code: str = "wrong-derivative", hint: str = DERIVATIVE_HINT) -> None:
    """`got` must be scale * sigmoid(x): a gradient (scale = grad_output) or a tangent (scale = x_t)."""
    if isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(x.shape) and not bool(torch.isfinite(got).all()):
        c.fail("derivative-overflow",
               f"{what} is {_bad_entries(got, x)}: exp(x) / (1 + exp(x)) is inf / inf there. " + DERIVATIVE_HINT)
    rtol, atol = _tolerance(x.dtype)
    c.require_close(got, scale * torch.sigmoid(x.detach()), what, code, hint, rtol=rtol, atol=atol)


def _softplus_methods(Softplus, seed: int, shape, jvp: bool = True,
                      parts: str = " ".join(sorted(ALL_PARTS))) -> None:
    x = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False)
    require_own_methods(Softplus, SOFTPLUS, x, F.softplus, seed=seed, jvp=jvp, tolerance=_tolerance(x.dtype),
                        dual=False, parts=parts.split())


def _values_case(Softplus, x, grad_output) -> None:
    shape = f"x of shape {tuple(x.shape)}, {x.dtype}"
    y = _run(Softplus.apply, x, what=f"Softplus.apply(x) for {shape}")
    _require_softplus(y, x, f"Softplus.apply(x) for {shape}")
    if y.dtype != x.dtype:
        c.fail("wrong-dtype", f"Softplus.apply(x) for {shape} has dtype {y.dtype}: keep x's dtype.")
    (grad,) = _run(c.backward_grads, y, [x], grad_output, what="Softplus.backward")
    _require_derivative(grad, x, grad_output, f"the gradient of Softplus.apply(x) for {shape}")


def _points(Softplus, values, dtype, grad_scale) -> None:
    c.require_self_contained(Softplus, SOFTPLUS)
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    _values_case(Softplus, x, torch.full_like(x, grad_scale).detach())


def _random_values(Softplus, seed, shape, scale) -> None:
    x = c.randn(*shape, seed=seed, scale=scale)
    _values_case(Softplus, x, c.randn(*shape, seed=seed + 10, requires_grad=False))


def _softplus_gradcheck(Softplus, seed, shape, scale) -> None:
    x = c.randn(*shape, seed=seed, scale=scale)
    _gradchecked(Softplus.apply, (x,), f"Softplus on shape {shape}", DERIVATIVE_HINT)


def _softplus_gradgradcheck(Softplus, seed, shape) -> None:
    x = c.randn(*shape, seed=seed, scale=2.0)
    _gradchecked(Softplus.apply, (x,), f"Softplus on shape {shape}", SOFTPLUS_TWICE_HINT, second=True)


def _input(spec, dtype=F64, scale=4.0):
    """A tensor from a case: fixed values, or (seed, shape) of random ones."""
    if len(spec) == 2 and isinstance(spec[0], int) and isinstance(spec[1], tuple):
        seed, shape = spec
        return c.randn(*shape, seed=seed, scale=scale, requires_grad=False, dtype=dtype)
    return torch.tensor(spec, dtype=dtype)


def _softplus_jvp(Softplus, spec, tangent_seed, dtype=F64) -> None:
    """jvp called directly, as forward mode calls it, on what setup_context saved: (ctx, x_t) -> sigmoid(x) x_t."""
    _require_split_style(Softplus, SOFTPLUS)
    x = _input(spec, dtype)
    t = c.randn(*x.shape, seed=tangent_seed, requires_grad=False, dtype=dtype)
    what = f"Softplus.jvp(ctx, x_t) for x of shape {tuple(x.shape)}, {x.dtype}, called as forward mode calls it"
    leaf = x.clone().requires_grad_(True)
    out = _direct(Softplus.forward, leaf, what="Softplus.forward(x), called as torch.func calls it")
    tangent = _own_jvp(Softplus, SOFTPLUS, _set_up(Softplus, SOFTPLUS, (leaf,), out), (t,))
    if isinstance(tangent, torch.Tensor) and tangent.shape == x.shape and bool(torch.isfinite(tangent).all()) \
            and x.numel() > 1 and bool(torch.allclose(tangent, torch.sigmoid(x), rtol=1e-6, atol=1e-9)):
        c.fail("jvp-ignores-tangent",
               f"the tangent {what} returned is sigmoid(x), as if every input tangent were 1: your jvp ignores the "
               "tangent it receives. " + TANGENT_HINT)
    _require_derivative(tangent, x, t, f"the output tangent of {what}", code="wrong-jvp", hint=TANGENT_HINT)
    # The same tangent under forward-mode AD itself (dual tensors, in the learner's process), where jvp's ctx is
    # autograd's own node: a stand-in ctx can be recognised, that node cannot.
    real_what = f"torch.autograd.forward_ad through Softplus.apply for x of shape {tuple(x.shape)}, {x.dtype}"
    real = _run(functools.partial(dual_tangent, Softplus), x, t, what=real_what)
    _require_derivative(real, x, t, f"Called directly, your jvp gave the right tangent; but under {real_what}, where "
                        "its ctx is autograd's own node, the output tangent", code="wrong-jvp", hint=TANGENT_HINT)


def _jacfwd_case(Softplus, spec) -> None:
    x = _input(spec, scale=3.0)
    what = f"torch.func.jacfwd(Softplus.apply)(x) for x of shape {tuple(x.shape)}"
    jac = under_func(Softplus, "jacfwd", x, what=what)
    n = x.numel()
    expected = torch.diag(torch.sigmoid(x).reshape(-1)).reshape(tuple(x.shape) * 2)
    if isinstance(jac, torch.Tensor) and tuple(jac.shape) == tuple(expected.shape) \
            and not bool(torch.isfinite(jac).all()):
        c.fail("derivative-overflow", f"{what} has inf or NaN entries. " + DERIVATIVE_HINT)
    hint = ("jacfwd calls your jvp with one one-hot tangent per entry of x (batched with vmap); the Jacobian of an "
            "elementwise function is diag(sigmoid(x)). " + TANGENT_HINT)
    if isinstance(jac, torch.Tensor) and tuple(jac.shape) == tuple(expected.shape) and n > 1:
        columns = jac.reshape(n, n)
        if bool(torch.allclose(columns, torch.sigmoid(x).reshape(-1, 1).expand(n, n), rtol=1e-6, atol=1e-9)):
            c.fail("jvp-ignores-tangent", f"{what} has sigmoid(x) in every column instead of on the diagonal: your "
                                          "jvp ignores the tangent it receives. " + TANGENT_HINT)
    c.require_close(jac, expected, what, "wrong-jacobian", hint, rtol=1e-9, atol=1e-12)


def _dual_case(Softplus, seed, shape) -> None:
    """Forward-mode AD with dual tensors (torch.autograd.forward_ad) through Softplus.apply, in the learner's
    process."""
    x = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False)
    t = c.randn(*shape, seed=seed + 1, requires_grad=False)
    got = _run(functools.partial(dual_tangent, Softplus), x, t, what="torch.autograd.forward_ad through Softplus.apply")
    _require_derivative(got, x, t, "the tangent of Softplus.apply(x) under torch.autograd.forward_ad", code="wrong-jvp",
                        hint="forward-mode AD calls your jvp: the derivative times x_t.")


def _hessian_case(Softplus, spec, weight_seed) -> None:
    """The Hessian of (Softplus.apply(x) * w).sum(), reverse over reverse through the learner's backward, here."""
    x = _input(spec, scale=3.0)
    w = None if weight_seed is None else c.randn(*x.shape, seed=weight_seed, requires_grad=False)
    what = (f"the Hessian of {'(Softplus.apply(x) * w)' if w is not None else 'Softplus.apply(x)'}.sum() for x of "
            f"shape {tuple(x.shape)}, through your backward twice")
    rows = []
    for e in torch.eye(x.numel(), dtype=x.dtype):
        leaf = x.clone().requires_grad_(True)
        y = _run(Softplus.apply, leaf, what=f"Softplus.apply(x) for x of shape {tuple(x.shape)}")
        (first,) = _run(lambda: torch.autograd.grad((y if w is None else y * w).sum(), [leaf], create_graph=True),
                        what="Softplus.backward")
        if isinstance(first, torch.Tensor) and not first.requires_grad:
            c.fail("not-twice-differentiable", f"{what}: backward's gradient has no history, so autograd cannot "
                                               "differentiate it again. " + SOFTPLUS_TWICE_HINT)
        (row,) = _run(lambda: torch.autograd.grad(first, [leaf], e.reshape(x.shape), allow_unused=True),
                      what="Softplus.backward's gradient, differentiated again")
        rows.append(row if row is not None else torch.zeros_like(x))
    hess = torch.stack(rows).reshape(tuple(x.shape) * 2)
    s = torch.sigmoid(x)
    expected = torch.diag((s * (1 - s) * (w if w is not None else 1.0)).reshape(-1)).reshape(tuple(x.shape) * 2)
    if not bool(torch.isfinite(hess).all()):
        c.fail("derivative-overflow", f"{what} has inf or NaN entries. " + DERIVATIVE_HINT)
    c.require_close(hess, expected, what, "not-twice-differentiable",
                    "the second derivative of softplus is sigmoid(x) * (1 - sigmoid(x)). " + SOFTPLUS_TWICE_HINT,
                    rtol=1e-9, atol=1e-12)


def _softplus_vmap(Softplus, seed, shape, in_dims) -> None:
    xb = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False) if seed is not None \
        else torch.tensor(EXTREMES, dtype=F64)
    label = "torch.func.vmap(Softplus.apply" + (f", in_dims={in_dims})" if in_dims else ")")
    out = under_func(Softplus, "vmap", xb, in_dims=in_dims, what=label)
    _require_softplus(out.movedim(0, in_dims) if isinstance(out, torch.Tensor) and out.dim() > in_dims else out,
                      xb, f"{label}(x) for x of shape {tuple(xb.shape)}")


def _softplus_vmap_jvp(Softplus, seed, shape) -> None:
    xb, tb = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False), c.randn(*shape, seed=seed + 1,
                                                                                requires_grad=False)
    tangents = under_func(Softplus, "vmap(jvp)", xb, tangent=tb,
                          what="torch.func.vmap(lambda x, t: torch.func.jvp(Softplus.apply, (x,), (t,))[1])")
    _require_derivative(tangents, xb, tb, "per-sample tangents vmap(jvp(...))", code="wrong-jvp", hint=TANGENT_HINT)


SOFTPLUS_CASE_CHECKS = {"points": _points, "random": _random_values, "gradcheck": _softplus_gradcheck,
                        "jvp": _softplus_jvp, "jacfwd": _jacfwd_case, "dual": _dual_case, "hessian": _hessian_case,
                        "gradgradcheck": _softplus_gradgradcheck, "vmap": _softplus_vmap,
                        "vmap(jvp)": _softplus_vmap_jvp, "methods": _softplus_methods}


def _softplus_cases(Softplus, cases) -> None:
    c.require_function(Softplus, SOFTPLUS)
    for kind, *params in cases:
        SOFTPLUS_CASE_CHECKS[kind](Softplus, *params)


SOFTPLUS_VALUES_CASES = (("points", (-1e4, -100.0, -30.0, 30.0, 100.0, 1e4), F32, 1.0),) + tuple(
    ("random", 100 + seed, shape, scale) for seed, shape in enumerate(SOFTPLUS_SHAPES) for scale in (3.0, 1e3))
SOFTPLUS_GRADCHECK_CASES = tuple(("gradcheck", 120, shape, 1.0) for shape in SOFTPLUS_SHAPES) + (
    ("gradcheck", 121, (2, 3), 5.0), ("gradcheck", 122, (5,), 8.0))
# Each test's methods case judges its own rule's part (require_own_methods): jvp the jvp, jacfwd the jvp and the
# vmap rule (jacfwd is vmap of jvp), hessian a backward autograd can differentiate again, vmap a forward in torch
# operations and the vmap rule; the forward's values at the extremes are softplus_values' alone.
SOFTPLUS_JVP_CASES = tuple(("jvp", (130 + k, shape), 140 + k) for k, shape in enumerate(SOFTPLUS_SHAPES)) + (
    ("jvp", EXTREMES, 150, F64), ("jvp", EXTREMES, 151, F32), ("methods", 136, (2, 3), True, "jvp"))
SOFTPLUS_JACFWD_CASES = (("jacfwd", (160, (2, 3))), ("jacfwd", (-1e4, -50.0, 50.0, 1e4)), ("dual", 162, (2, 3)),
                         ("vmap(jvp)", 182, (5, 3)), ("methods", 166, (4,), True, "jvp vmap"))
SOFTPLUS_HESSIAN_CASES = (("hessian", (170, (2, 3)), 171), ("hessian", (-1e4, -50.0, 50.0, 1e4), None),
                          ("gradgradcheck", 175, (4,)), ("gradgradcheck", 176, (2, 3)),
                          ("methods", 173, (2, 3), False, "twice"))
SOFTPLUS_VMAP_CASES = (("vmap", 180, (4, 3), 0), ("vmap", 181, (3, 4, 2), 1), ("vmap", 183, (7,), 0),
                       ("methods", 186, (2, 3), False, "forward vmap"))


def softplus_values(Softplus, cases=(("points", (-3.0, -0.5, 0.0, 0.5, 3.0), F64, 2.0),
                                     ("points", EXTREMES, F64, 1.0))) -> None:
    """Values and gradient through ordinary autograd: a small float64 example and the extremes +-1e4 (the table:
    float32 extremes, random shapes, scales and seeds)."""
    _softplus_cases(Softplus, cases)


def softplus_gradcheck(Softplus, cases=(("gradcheck", 120, (4,), 2.0),)) -> None:
    """float64 gradcheck (the table: several shapes, scales and seeds)."""
    _softplus_cases(Softplus, cases)


def softplus_jvp(Softplus, cases=(("jvp", (-2.0, 0.5, 3.0), 135), ("methods", 135, (3,), True, "jvp"))) -> None:
    """Softplus.jvp, called in the judge as forward mode calls it: the tangent sigmoid(x) * t (the table: random
    shapes and tangents, the extremes, float32)."""
    _softplus_cases(Softplus, cases)


def softplus_jacfwd(Softplus, cases=(("jacfwd", (-1.0, 0.25, 2.0)),
                                     ("methods", 165, (3,), True, "jvp vmap"))) -> None:
    """torch.func.jacfwd(Softplus.apply) (a probe) is diag(sigmoid(x)); the table adds shape (2, 3), the extremes,
    forward-mode AD with dual tensors and per-sample jvp (vmap of jvp; probes too)."""
    _softplus_cases(Softplus, cases)


def softplus_hessian(Softplus, cases=(("hessian", (-1.0, 0.25, 2.0), None),
                                      ("methods", 172, (3,), False, "twice"))) -> None:
    """What torch.func.hessian needs of Softplus, verified in the judge: the Hessian diag(sigmoid(x)(1 - sigmoid(x)))
    through backward twice, and the methods called directly (the table: a weighted sum, the extremes,
    gradgradcheck)."""
    _softplus_cases(Softplus, cases)


def softplus_vmap(Softplus, cases=(("vmap", 180, (4, 3), 0),
                                   ("methods", 185, (4,), False, "forward vmap"))) -> None:
    """torch.func.vmap(Softplus.apply) (a probe) is softplus sample by sample; the table adds in_dims=1 and other
    shapes."""
    _softplus_cases(Softplus, cases)


# ------------------------------------------------------------------------------------------ ScaledProduct
# A case is ("values", seed, shape, alpha), ("gradcheck", seed, shape, alpha), ("jvp", seed, shape, alpha, which
# tangents: "x", "y" or "both", dtype) or ("central", seed, shape, alpha): jvp against central differences of apply.

SCALED = "ScaledProduct"
PRODUCT_HINT = "the gradients of alpha * x * y are grad_output * alpha * y for x, grad_output * alpha * x for y, None for alpha."
JVP_TWO_HINT = ("jvp(ctx, x_t, y_t, alpha_t) returns the output's tangent: one term per tensor input, its derivative "
                "times its tangent, alpha * (x_t * y + x * y_t). Forward mode hands jvp one tangent per input of "
                "forward: None for alpha (a float has no tangent) and, on torch 2.13, zeros for a tensor input that "
                "has none. Read x and y from what setup_context saved with ctx.save_for_forward, alpha from ctx.")


def _scaled_inputs(seed, shape, dtype=F64, requires_grad=True):
    return (c.randn(*shape, seed=seed, requires_grad=requires_grad, dtype=dtype),
            c.randn(*shape, seed=seed + 1, requires_grad=requires_grad, dtype=dtype))


def _scaled_values(Fn, seed, shape, alpha) -> None:
    c.require_self_contained(Fn, SCALED)
    x, y = _scaled_inputs(seed, shape)
    what = f"ScaledProduct.apply(x, y, {alpha}) for x, y of shape {shape}"
    out = _run(Fn.apply, x, y, alpha, what=what)
    c.require_close(out, alpha * x.detach() * y.detach(), what, "wrong-forward", "forward returns alpha * x * y.")
    g = c.randn(*shape, seed=seed + 2, requires_grad=False)
    grad_x, grad_y = _run(c.backward_grads, out, [x, y], g, what="ScaledProduct.backward")
    c.require_close(grad_x, g * alpha * y.detach(), f"the gradient for x of {what}", "wrong-derivative", PRODUCT_HINT)
    c.require_close(grad_y, g * alpha * x.detach(), f"the gradient for y of {what}", "wrong-derivative", PRODUCT_HINT)


def _scaled_gradcheck(Fn, seed, shape, alpha) -> None:
    x, y = _scaled_inputs(seed, shape)
    _gradchecked(lambda a, b: Fn.apply(a, b, alpha), (x, y), f"ScaledProduct(x, y, {alpha}) on shape {shape}",
                 PRODUCT_HINT)


def _scaled_own_jvp(Fn, x, y, alpha, x_t, y_t):
    """The learner's forward, setup_context and jvp, called one by one as forward mode calls them."""
    _require_split_style(Fn, SCALED)
    leaves = x.detach().clone().requires_grad_(True), y.detach().clone().requires_grad_(True)
    out = _direct(Fn.forward, *leaves, alpha, what=f"ScaledProduct.forward(x, y, {alpha}), called as torch.func "
                  "calls it")
    c.require_close(out, alpha * x.detach() * y.detach(), "ScaledProduct.forward(x, y, alpha) called directly",
                    "wrong-forward", "forward returns alpha * x * y.")
    tangent = _own_jvp(Fn, SCALED, _set_up(Fn, SCALED, (*leaves, alpha), out), (x_t, y_t, None))
    if isinstance(tangent, (tuple, list)):
        c.fail("jvp-arity",
               f"ScaledProduct.jvp returned {len(tangent)} values. backward returns one gradient per input; jvp goes "
               "the other way and returns one tangent per output of forward: here a single tensor, the output's "
               "tangent.")
    return tangent


def _scaled_jvp(Fn, seed, shape, alpha, which, dtype=F64) -> None:
    x, y = _scaled_inputs(seed, shape, dtype, requires_grad=False)
    t = c.randn(*shape, seed=seed + 5, requires_grad=False, dtype=dtype)
    zero = torch.zeros_like(t)
    x_t, y_t = {"x": (t, zero), "y": (zero, t), "both": (t, 2 * t.flip(-1) if t.dim() else -t)}[which]
    got = _scaled_own_jvp(Fn, x, y, alpha, x_t, y_t)
    expected = alpha * (x_t * y + x * y_t)
    pattern = {"x": "a tangent on x only", "y": "a tangent on y only", "both": "tangents on x and y"}[which]
    what = (f"ScaledProduct.jvp(ctx, x_t, y_t, None) with {pattern} (the other zeros, as torch 2.13 passes them), "
            f"shape {shape}, {dtype}")
    if which != "x" and isinstance(got, torch.Tensor) and got.shape == expected.shape and x.numel() > 0:
        ignored_y = alpha * x_t * y
        if bool(torch.allclose(got, ignored_y)) and not bool(torch.allclose(got, expected)):
            c.fail("jvp-ignores-tangent", f"{what}: your jvp gives alpha * x_t * y, the term of x alone: it ignores "
                                          "y_t, the tangent of y. " + JVP_TWO_HINT)
    rtol = 1e-9 if dtype == F64 else 1e-5
    c.require_close(got, expected, what, "wrong-jvp", JVP_TWO_HINT, rtol=rtol, atol=rtol * 1e-2)
    # The same tangent under forward-mode AD itself (x and y dual tensors, in the learner's process), where jvp's
    # ctx is autograd's own node: a stand-in ctx can be recognised, that node cannot.
    real = _run(functools.partial(dual_tangents, Fn), (x, y, alpha), (x_t, y_t, None),
                what=f"torch.autograd.forward_ad through ScaledProduct.apply with {pattern}")
    c.require_close(real, expected, f"Called directly, your jvp gave the right tangent; but under forward-mode AD "
                    f"(x and y dual tensors, {pattern}), where its ctx is autograd's own node, the output tangent",
                    "wrong-jvp", JVP_TWO_HINT, rtol=rtol, atol=rtol * 1e-2)


def _scaled_central(Fn, seed, shape, alpha) -> None:
    """What gradcheck(check_forward_ad=True) does, in the judge: the learner's jvp against central differences of
    the learner's own apply, along random tangents of x and y."""
    x, y = _scaled_inputs(seed, shape, requires_grad=False)
    x_t, y_t = c.randn(*shape, seed=seed + 7, requires_grad=False), c.randn(*shape, seed=seed + 8, requires_grad=False)
    eps = 1e-6
    plus = _run(Fn.apply, x + eps * x_t, y + eps * y_t, alpha, what="ScaledProduct.apply")
    minus = _run(Fn.apply, x - eps * x_t, y - eps * y_t, alpha, what="ScaledProduct.apply")
    numerical = (plus - minus) / (2 * eps)
    got = _scaled_own_jvp(Fn, x, y, alpha, x_t, y_t)
    c.require_close(got, numerical, f"ScaledProduct.jvp against central differences of ScaledProduct.apply (what "
                    f"gradcheck(..., check_forward_ad=True) compares), shape {shape}", "wrong-jvp", JVP_TWO_HINT,
                    rtol=1e-3, atol=1e-5)


SCALED_CASE_CHECKS = {"values": _scaled_values, "gradcheck": _scaled_gradcheck, "jvp": _scaled_jvp,
                      "central": _scaled_central}


def _scaled_cases(Fn, cases) -> None:
    c.require_function(Fn, SCALED)
    for kind, *params in cases:
        SCALED_CASE_CHECKS[kind](Fn, *params)


SCALED_VALUES_CASES = (("values", 200, (2, 3), -1.5), ("values", 202, (), 0.5), ("values", 204, (4,), 0.0),
                       ("gradcheck", 206, (3,), 2.0), ("gradcheck", 208, (2, 3), -0.5))
SCALED_JVP_CASES = tuple(("jvp", 210 + 10 * k, shape, alpha, which) for k, (shape, alpha) in
                         enumerate((((4,), 3.0), ((2, 3), -0.5), ((), 2.0))) for which in ("x", "y", "both")) + (
    ("jvp", 250, (2, 3), 1.5, "both", F32), ("central", 260, (3,), 2.0), ("central", 262, (2, 3), -1.25))


def scaled_values(ScaledProduct, cases=(("values", 200, (3,), 2.0),)) -> None:
    """alpha * x * y and its gradients (None for alpha) through ordinary autograd (the table: shapes, alphas,
    gradcheck)."""
    _scaled_cases(ScaledProduct, cases)


def scaled_jvp(ScaledProduct, cases=(("jvp", 230, (3,), 2.0, "y"), ("jvp", 231, (3,), 2.0, "both"))) -> None:
    """ScaledProduct.jvp, called in the judge as forward mode calls it (zeros for a tensor without a tangent, None
    for alpha), against alpha (x_t y + x y_t) (the table: every tangent pattern, shapes, float32, and central
    differences of apply)."""
    _scaled_cases(ScaledProduct, cases)


# ------------------------------------------------------------------------------------------ RunningSum
# A case is ("values", seed, shape), ("gradcheck", seed, shape) or ("vmap", seed, per-sample shape, batch size,
# in_dims[0]).

RUNNING = "RunningSum"
RUNNING_HINT = ("the running sum's gradient sums grad_output from the end: grad_output.flip(-1).cumsum(-1).flip(-1), "
                "with torch operations.")
RUNNING_VMAP_HINT = ("vmap(info, in_dims, x) receives the whole batch, with the batch on dimension in_dims[0], and "
                     "returns (output, out_dims): the output of every sample, with its batch on dimension out_dims.")

RUNNING_VMAP_RULES = (
    Rule("no-vmap-rule", NO_VMAP_MSG,
         "{what}: your Function has no vmap staticmethod (\"{text}\"). generate_vmap_rule cannot batch a NumPy "
         "kernel: write @staticmethod vmap(info, in_dims, x) that runs the kernel on the whole batch and returns "
         "(output, out_dims).", types=(NotImplementedError,)),
) + DIRECT_RULES


def _running_values(Fn, seed, shape) -> None:
    c.require_self_contained(Fn, RUNNING)
    x = c.randn(*shape, seed=seed)
    what = f"RunningSum.apply(x) for x of shape {shape}"
    out = _run(Fn.apply, x, what=what)
    c.require_close(out, torch.cumsum(x.detach(), -1), what, "wrong-forward",
                    "forward returns the cumulative sum along the last dimension (np.cumsum(..., axis=-1)).")
    g = c.randn(*shape, seed=seed + 1, requires_grad=False)
    (grad,) = _run(c.backward_grads, out, [x], g, what="RunningSum.backward")
    c.require_close(grad, g.flip(-1).cumsum(-1).flip(-1), f"the gradient of {what}", "wrong-derivative", RUNNING_HINT)


def _running_gradcheck(Fn, seed, shape) -> None:
    _gradchecked(Fn.apply, (c.randn(*shape, seed=seed),), f"RunningSum on shape {shape}", RUNNING_HINT)


def _running_vmap(Fn, seed, sample_shape, batch, in_dim) -> None:
    """Fn.vmap called as torch.func.vmap calls it: the whole batch, the batch on dimension in_dim."""
    if bool(Fn.generate_vmap_rule):
        c.fail("generated-vmap-rule",
               "RunningSum sets generate_vmap_rule = True: that rule runs forward on batched wrapper tensors, which "
               "have no storage, so a NumPy kernel cannot run on them (\"Cannot access data pointer\"). Remove it and "
               "write a vmap staticmethod. " + RUNNING_VMAP_HINT)
    samples = [c.randn(*sample_shape, seed=seed + k, requires_grad=False) for k in range(batch)]
    x = torch.stack(samples, dim=in_dim)
    what = (f"RunningSum.vmap(info, ({in_dim},), x) for {batch} samples of shape {sample_shape}, batched on dimension "
            f"{in_dim} (x of shape {tuple(x.shape)}), called as vmap calls it")
    result = _direct(Fn.vmap, _VmapInfo(batch), (in_dim,), x, what=what, rules=RUNNING_VMAP_RULES)
    out, dims = result if isinstance(result, (tuple, list)) and len(result) == 2 else (result, None)
    dims = dims[0] if isinstance(dims, (tuple, list)) and len(dims) == 1 else dims
    if not isinstance(out, torch.Tensor) or not isinstance(dims, int) or not -out.dim() <= dims < out.dim():
        c.fail("wrong-vmap", f"{what}: it must return a pair (output, out_dims), out_dims the dimension of output "
                             "that holds the batch (an int). " + RUNNING_VMAP_HINT)
    got = out.movedim(dims, 0)
    expected = torch.stack([torch.cumsum(s, -1) for s in samples])
    if got.shape != expected.shape:
        c.fail("wrong-vmap", f"{what}: its output, with the batch moved from out_dims = {dims} to the front, has shape "
                             f"{tuple(got.shape)}, not {tuple(expected.shape)} ({batch} samples of shape "
                             f"{sample_shape}): out_dims must name the dimension of the output that holds the batch, "
                             "wherever your vmap put it. Each sample must get its own running sum. " + RUNNING_VMAP_HINT)
    if got.shape == expected.shape and in_dim == x.dim() - 1 and bool(
            torch.allclose(got, torch.cumsum(x, -1).movedim(in_dim, 0))) and not bool(torch.allclose(got, expected)):
        c.fail("vmap-sums-the-batch",
               f"{what}: its output sums across the batch. vmap put the batch on the last dimension, the one your "
               "kernel sums along, and your vmap ran the kernel on x as it came. Put the batch on a dimension the "
               "kernel does not sum along before calling it, and say in out_dims where it ended up. " +
               RUNNING_VMAP_HINT)
    c.require_close(got, expected, f"{what}, the output moved from out_dims to dimension 0", "wrong-vmap",
                    "each sample must get its own running sum. " + RUNNING_VMAP_HINT)
    # The same batch through torch.func.vmap itself, in the learner's process, where `info` is vmap's own (the judge's
    # stand-in for it can be recognised).
    real_what = f"torch.func.vmap(RunningSum.apply, in_dims={in_dim}) on x of shape {tuple(x.shape)}"
    with c.explained(real_what, RUNNING_VMAP_RULES):
        real = _transform(Fn, "vmap", x, {"in_dims": in_dim})
    c.require_close(real, expected, f"Called directly, RunningSum.vmap gave each sample its running sum; but under "
                    f"{real_what}, where info is vmap's own, the output", "wrong-vmap",
                    "each sample must get its own running sum. " + RUNNING_VMAP_HINT)


RUNNING_CASE_CHECKS = {"values": _running_values, "gradcheck": _running_gradcheck, "vmap": _running_vmap}


def _running_cases(Fn, cases) -> None:
    c.require_function(Fn, RUNNING)
    for kind, *params in cases:
        RUNNING_CASE_CHECKS[kind](Fn, *params)


RUNNING_VALUES_CASES = (("values", 300, (5,)), ("values", 301, (2, 4)), ("values", 302, (2, 3, 4)),
                        ("gradcheck", 303, (4,)), ("gradcheck", 304, (2, 3)))
RUNNING_VMAP_CASES = (("vmap", 310, (4,), 3, 0), ("vmap", 320, (4,), 3, 1), ("vmap", 330, (2, 5), 4, 2),
                      ("vmap", 340, (2, 5), 3, 1), ("vmap", 350, (3,), 1, 1))


def running_values(RunningSum, cases=(("values", 300, (2, 4)),)) -> None:
    """The running sum along the last dimension and its gradient, through ordinary autograd (the table: shapes,
    gradcheck)."""
    _running_cases(RunningSum, cases)


def running_vmap(RunningSum, cases=(("vmap", 310, (4,), 3, 0), ("vmap", 320, (4,), 3, 1))) -> None:
    """RunningSum.vmap, called in the judge as vmap calls it, with the batch on the first and on the last
    dimension, against the running sum of each sample computed here (the table: 2-d samples, other in_dims)."""
    _running_cases(RunningSum, cases)
