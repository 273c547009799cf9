"""Checks for notebook 10 (torch.func: vmap, grad, jacrev, and forward mode: jvp, jacfwd, hessian).

- `Cube.apply(x)` returns x ** 3. Written in the torch.func style: `forward(x)` without ctx, a separate
  `setup_context(ctx, inputs, output)`, `generate_vmap_rule = True`, and a backward made of differentiable
  torch operations, so it works under `torch.func.vmap`, `grad` and `jacrev`, and twice.
- `Softplus.apply(x)` returns log(1 + exp(x)), finite and accurate for |x| up to 1e4 (no overflow, no NaN), in
  the same style plus a `jvp(ctx, x_t)` staticmethod reading what setup_context saved with
  `ctx.save_for_forward`, so it works under `torch.func.jvp`, `jacfwd`, `hessian` and `vmap` too. The trusted
  reference is torch.nn.functional.softplus (its derivative torch.sigmoid), bound when this module is imported.

When grading, the learner's names are proxies here (autograder/sandbox/proxy.py): calls, gradients, gradcheck and
gradgradcheck go through them, but torch.func transforms need the real objects. Those run in the learner's
process, in one probe (`transformed`) that returns only the tensors the transform computed. Every comparison
and verdict is made here.
"""

from __future__ import annotations

import functools

import torch
import torch.func
import torch.nn.functional as F

from autograder.checks import behaviour
from autograder.checks import common as c


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


# --------------------------------------------------------------------------------- torch.func feedback

def _explain_func(error: Exception, what: str) -> None:
    """Plain words for the errors torch.func raises on a Function that is not written for it."""
    text = str(error)
    if SETUP_CONTEXT_MSG in text:
        c.fail("no-setup-context",
               f"{what}: torch.func refused your Function (\"{SETUP_CONTEXT_MSG}\"). Its forward takes ctx: "
               "write forward(x) without ctx, and save what backward needs in a separate "
               "@staticmethod setup_context(ctx, inputs, output).")
    if VMAP_RULE_MSG in text:
        c.fail("no-vmap-rule",
               f"{what}: vmap does not know how to batch your Function (jacfwd and hessian batch with vmap too). "
               "Add the class attribute generate_vmap_rule = True (vmap then runs your methods on batched "
               "tensors itself).")
    if NO_STORAGE_MSG in text:
        c.fail("leaves-torch",
               f"{what}: your forward or backward leaves torch (NumPy, .item(), .tolist()). Under torch.func the "
               "tensors are wrappers without storage of their own: write both methods with torch operations.")
    if "expected np.ndarray" in text:
        c.fail("leaves-torch",
               f"{what}: your Function uses NumPy (torch.from_numpy received a NumPy scalar, which NumPy returns "
               "for a 0-d input). Write forward and backward with torch operations: they must also run under "
               "torch.func, where NumPy cannot run at all.")
    if isinstance(error, TypeError) and "positional argument" in text:
        c.fail("wrong-signature",
               f"{what} raised TypeError: {text}. In the torch.func style forward takes only the inputs "
               "(forward(x), no ctx), setup_context takes (ctx, inputs, output), backward takes "
               "(ctx, grad_output), jvp takes (ctx, x_t).")
    if (isinstance(error, ValueError) and "got 0)" in text) or (
            isinstance(error, IndexError) and "tuple index out of range" in text):
        c.fail("nothing-saved",
               f"{what}: ctx.saved_tensors was empty where your Function read it ({type(error).__name__}: {text}). "
               "Each direction has its own saved tensors: jvp sees only what setup_context saved with "
               "ctx.save_for_forward(...), backward only what it saved with ctx.save_for_backward(...). "
               "Save x with both.")


def _run(fn, *args, what: str):
    """Call learner code (directly or through a torch.func transform) with plain feedback on failure."""
    try:
        return c.call(fn, *args, what=what)
    except c.Mistake:
        raise
    except (RuntimeError, TypeError, ValueError, IndexError) as error:
        _explain_func(error, what)
        raise


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
    try:
        return transformed(Fn, how, x, **options)
    except NotImplementedError as error:
        if NO_JVP_MSG in str(error):
            c.fail("no-jvp",
                   "forward-mode AD (torch.func.jvp, jacfwd, hessian) needs a jvp staticmethod, and your Function "
                   f"has none (\"{NO_JVP_MSG} for custom autograd.Function to use it with forward mode AD\"). Add "
                   "@staticmethod jvp(ctx, x_t) returning the output's tangent: the derivative times x_t.")
        raise


def under_func(Fn, how: str, x, what: str, **options):
    """`transformed(Fn, how, x, **options)` with plain feedback on failure (see `_run`)."""
    return _run(functools.partial(_transform, Fn, how, options=options), x, what=what)


def _cube_gradcheck(fn, inputs, what, hint, second=False):
    try:
        if second:
            c.gradgradcheck(fn, inputs, what, hint=hint)
        else:
            c.gradcheck(fn, inputs, what, hint=hint)
    except c.Mistake:
        raise
    except (RuntimeError, TypeError, ValueError, IndexError) as error:
        _explain_func(error, what)
        raise


# ------------------------------------------------------------------- the static methods, called directly

NO_SETUP_MSG = "setup_context is not implemented"
NO_VMAP_MSG = "override the vmap staticmethod or set generate_vmap_rule=True"


def _direct(fn, *args, what: str):
    """One of the learner's static methods called by the judge, with plain feedback on failure."""
    snapshots = c._snapshot_inputs(args)
    try:
        result = fn(*args)
    except c.Mistake:
        raise
    except NotImplementedError as error:
        text = str(error)
        if NO_SETUP_MSG in text:
            c.fail("no-setup-context",
                   f"{what}: your Function has no setup_context (\"{text}\"). torch.func calls forward(x) without "
                   "ctx, then @staticmethod setup_context(ctx, inputs, output), where you save what backward and "
                   "jvp need.")
        if NO_JVP_MSG in text:
            c.fail("no-jvp",
                   f"{what}: your Function has no jvp (\"{text}\"). Forward mode (torch.func.jvp, jacfwd, hessian) "
                   "calls @staticmethod jvp(ctx, *input_tangents), which returns the output's tangent.")
        if NO_VMAP_MSG in text:
            c.fail("no-vmap-rule",
                   f"{what}: vmap does not know how to batch your Function (\"{text}\"). Add the class attribute "
                   "generate_vmap_rule = True (vmap then runs your methods on batched tensors itself).")
        c.fail("not-implemented", f"{what} is not implemented yet (it still raises NotImplementedError).")
    except (RuntimeError, TypeError, ValueError, IndexError) as error:
        if isinstance(error, RuntimeError):
            c.explain(error, what, c.ENGINE_RULES)
        _explain_func(error, what)
        raise
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


def require_own_methods(Fn, name: str, x, ref, args: tuple = (), seed: int = 0, jvp: bool = False,
                        tolerance=(1e-7, 1e-9)) -> None:
    """torch.func runs a Function through its own static methods: forward(x, *args) without ctx, setup_context,
    backward (differentiated again by grad of grad, jacrev and hessian), jvp in forward mode, and its vmap rule.
    Here the judge calls each of them directly, on inputs of its own choosing (x, of a shape the other tests
    use too, and random grad_output, tangents and directions), and compares each result with the reference
    `ref(x, *args)` (torch operations) differentiated here. So the points of the torch.func tests go to the
    Function's methods, not to whatever the Function's `apply` runs under a transform."""
    rtol, atol = tolerance
    sig = ", ".join(["x"] + [repr(a) for a in args])
    x = x.detach().clone().requires_grad_(True)
    expected = ref(x.detach(), *args)
    # forward, in grad mode: torch operations leave a history; NumPy, .item() and .tolist() do not
    out = _direct(Fn.forward, x, *args, what=f"{name}.forward({sig}), called as torch.func calls it")
    c.require_close(out, expected, f"{name}.forward({sig}) called directly", "wrong-forward", rtol=rtol, atol=atol)
    if not out.requires_grad:
        c.fail("leaves-torch",
               f"{name}.forward({sig}), called directly on an x that requires grad, returned a tensor with no "
               "history: it leaves torch (NumPy, .item(), .tolist()) or detaches. Under torch.func your forward "
               "runs on wrapped tensors (batched ones, with generate_vmap_rule): write it with torch operations.")
    # setup_context, in no-grad mode as autograd calls it, with the output forward returned
    ctx = behaviour.stand_in_ctx(name, (True,) + (False,) * len(args))
    with torch.no_grad():
        _direct(Fn.setup_context, ctx, (x, *args), out, what=f"{name}.setup_context(ctx, inputs, output)")
    # backward: the right gradient, made of operations autograd can differentiate again
    g = c.randn(*expected.shape, seed=seed + 1, requires_grad=False, dtype=x.dtype)
    v = c.randn(*x.shape, seed=seed + 2, requires_grad=False, dtype=x.dtype)
    first, second = _reference_grads(ref, x, args, g, v)
    grads = _direct(Fn.backward, ctx, g, what=f"{name}.backward(ctx, grad_output)")
    grad = grads[0] if isinstance(grads, (tuple, list)) and grads else grads
    c.require_close(grad, first, f"{name}.backward(ctx, grad_output) called directly", "wrong-derivative",
                    rtol=rtol, atol=atol)
    if not grad.requires_grad:
        c.fail("not-twice-differentiable",
               f"{name}.backward, called directly with the x that setup_context saved (x requires grad), returned "
               "a gradient with no history: autograd cannot differentiate it again, and torch.func's grad of grad, "
               "jacrev and hessian need to. " + TWICE_HINT)
    (again,) = _direct(lambda: torch.autograd.grad(grad, [x], v, allow_unused=True), what=f"{name}.backward's "
                       "gradient, differentiated again")
    if again is None:
        again = torch.zeros_like(x)
    c.require_close(again.detach(), second, f"the derivative of {name}.backward's result with respect to x",
                    "not-twice-differentiable", TWICE_HINT, rtol=1e-6, atol=1e-9)
    if jvp:
        _require_own_jvp(Fn, name, x, ref, args, ctx, seed, rtol, atol)
    # the vmap rule: generated from these methods, or the Function's own vmap staticmethod
    if not bool(Fn.generate_vmap_rule):
        batch = torch.stack([x.detach(), 2 * x.detach()])
        result = _direct(Fn.vmap, _VmapInfo(2), (0,) + (None,) * len(args), batch, *args,
                         what=f"{name}.vmap(info, in_dims, x{', ...' if args else ''}), called as vmap calls it")
        got, dims = result if isinstance(result, (tuple, list)) and len(result) == 2 else (result, None)
        if not isinstance(got, torch.Tensor) or dims not in (0, (0,), [0]):
            c.fail("wrong-vmap", f"{name}.vmap must return (the batched output, its out_dims), here "
                                 "(tensor, 0) for a batch on dimension 0.")
        c.require_close(got, torch.stack([ref(b, *args) for b in batch]), f"{name}.vmap on a batch of two samples",
                        "wrong-vmap", "each sample must get its own result.", rtol=rtol, atol=atol)


def _require_own_jvp(Fn, name, x, ref, args, ctx, seed, rtol, atol) -> None:
    """jvp called directly on what setup_context saved with ctx.save_for_forward and a random tangent, then the
    same tangent through Fn.apply in forward-mode AD with dual tensors (real autograd, no stand-in ctx)."""
    t = c.randn(*x.shape, seed=seed + 3, requires_grad=False, dtype=x.dtype)
    with torch.no_grad():
        tangent = _direct(Fn.jvp, ctx.forward_mode(), t, *(None,) * len(args),
                          what=f"{name}.jvp(ctx, x_t{', None' * len(args)}), called as forward mode calls it")
    _, reference = torch.func.jvp(lambda u: ref(u, *args), (x.detach(),), (t,))
    c.require_close(tangent, reference, f"{name}.jvp(ctx, x_t) called directly", "wrong-jvp",
                    "jvp returns the output's tangent: the derivative times x_t, read from what setup_context "
                    "saved with ctx.save_for_forward.", rtol=rtol, atol=atol)
    # and the same in forward mode under plain autograd (dual tensors, no torch.func wrapper)
    got = _direct(functools.partial(dual_tangent, Fn), x.detach(), t, args,
                  what=f"torch.autograd.forward_ad through {name}.apply")
    c.require_close(got, reference, f"the tangent of {name}.apply(x) under torch.autograd.forward_ad", "wrong-jvp",
                    "forward-mode AD calls your jvp: the derivative times x_t.", rtol=rtol, atol=atol)


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


# ---------------------------------------------------------------------------------------------- Cube

def _cube_methods(Cube, seed: int, shape) -> None:
    """Cube's own methods, called directly (see require_own_methods)."""
    require_own_methods(Cube, CUBE, c.randn(*shape, seed=seed, requires_grad=False), lambda t: t ** 3, seed=seed)


def cube_values(Cube) -> None:
    """Visible: values and the gradient of a small example, through ordinary autograd."""
    c.require_function(Cube, CUBE)
    c.require_self_contained(Cube, CUBE)
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    y = _run(Cube.apply, x, what="Cube.apply(x)")
    c.require_close(y, x.detach() ** 3, "Cube.apply(x)", "wrong-forward", "forward should return x ** 3.")
    (grad,) = _run(c.backward_grads, y, [x], torch.full_like(y, 2.0), what="Cube.backward")
    c.require_close(grad, 6 * x.detach() ** 2, "the gradient of Cube.apply(x) with grad_output = 2",
                    "wrong-derivative", CUBE_HINT)


def cube_gradcheck(Cube, seeds=(0, 1, 2)) -> None:
    """Hidden: float64 finite differences over several shapes and seeds."""
    c.require_function(Cube, CUBE)
    for seed in seeds:
        for shape in CUBE_SHAPES:
            x = c.randn(*shape, seed=seed)
            _cube_gradcheck(Cube.apply, (x,), f"Cube on shape {shape}", CUBE_HINT)


def cube_gradgradcheck(Cube, hidden: bool = False) -> None:
    """Second derivatives: gradgradcheck, and torch.func.grad of torch.func.grad gives 6x.
    Visible: one shape; hidden: more shapes and seeds."""
    c.require_function(Cube, CUBE)
    cases = [(0, (3,)), (1, (2, 3)), (0, (2, 3, 4))] if hidden else [(0, (3,))]
    for seed, shape in cases:
        x = c.randn(*shape, seed=10 + seed)
        _cube_gradcheck(Cube.apply, (x,), f"Cube on shape {shape}", TWICE_HINT, second=True)
    x = c.randn(5 if hidden else 3, seed=12 if hidden else 13, requires_grad=False)
    curvature = under_func(Cube, "grad(grad)", x, what="torch.func.grad(torch.func.grad(...)) through Cube")
    c.require_close(curvature, 6 * x, "the second derivative of Cube through torch.func", "not-twice-differentiable",
                    "d2(x**3)/dx2 = 6x. " + TWICE_HINT)
    _cube_methods(Cube, 14 if hidden else 15, (2, 3))


def cube_vmap(Cube, hidden: bool = False) -> None:
    """torch.func.vmap(Cube.apply) equals x ** 3 sample by sample. Visible: a (4, 3) batch; hidden: other shapes
    and in_dims."""
    c.require_function(Cube, CUBE)
    xb = c.randn(5, 3, seed=20, requires_grad=False) if hidden else c.randn(4, 3, seed=23, requires_grad=False)
    out = under_func(Cube, "vmap", xb, what="torch.func.vmap(Cube.apply)")
    expected = torch.stack([xi ** 3 for xi in xb])
    c.require_close(out, expected, f"torch.func.vmap(Cube.apply)(x) for x of shape {tuple(xb.shape)}", "wrong-vmap",
                    "each sample must be cubed.")
    _cube_methods(Cube, 24 if hidden else 25, (3,) if hidden else (2, 3))
    if not hidden:
        return
    xs = c.randn(6, seed=21, requires_grad=False)
    out = under_func(Cube, "vmap", xs, what="torch.func.vmap(Cube.apply) over scalars")
    c.require_close(out, xs ** 3, "torch.func.vmap(Cube.apply)(x) for x of shape (6,)", "wrong-vmap")
    xt = c.randn(3, 4, 2, seed=22, requires_grad=False)
    out = under_func(Cube, "vmap", xt, in_dims=1, what="torch.func.vmap(Cube.apply, in_dims=1)")
    c.require_close(out, (xt ** 3).movedim(1, 0), "torch.func.vmap(Cube.apply, in_dims=1)(x)", "wrong-vmap")


def cube_func_grad(Cube, hidden: bool = False) -> None:
    """torch.func.grad of a scalar function using Cube matches 3x^2 (times the weights). Visible: one shape;
    hidden: more shapes, and per-sample gradients (vmap of grad)."""
    c.require_function(Cube, CUBE)
    cases = ((30, (4,)), (31, (2, 3))) if hidden else ((33, (3,)),)
    for seed, shape in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False)
        w = c.randn(*shape, seed=seed + 100, requires_grad=False)
        g = under_func(Cube, "grad", x, weight=w, what="torch.func.grad(lambda t: (Cube.apply(t) * w).sum())")
        c.require_close(g, 3 * x ** 2 * w, f"torch.func.grad of (Cube.apply(x) * w).sum() for shape {shape}",
                        "wrong-derivative", CUBE_HINT)
    _cube_methods(Cube, 34 if hidden else 35, (4,) if hidden else (3,))
    if not hidden:
        return
    xb = c.randn(4, 3, seed=32, requires_grad=False)
    g = under_func(Cube, "vmap(grad)", xb, what="vmap(grad(...)) through Cube")
    c.require_close(g, 3 * xb ** 2, "per-sample gradients vmap(grad(lambda t: Cube.apply(t).sum()))(x)",
                    "wrong-derivative", CUBE_HINT)


def cube_jacrev(Cube, hidden: bool = False) -> None:
    """torch.func.jacrev(Cube.apply) is the diagonal matrix diag(3x^2). Visible: shape (4,); hidden: (2, 3)."""
    c.require_function(Cube, CUBE)
    if not hidden:
        x = c.randn(4, seed=40, requires_grad=False)
        jac = under_func(Cube, "jacrev", x, what="torch.func.jacrev(Cube.apply)")
        c.require_close(jac, torch.diag(3 * x ** 2), "torch.func.jacrev(Cube.apply)(x) for x of shape (4,)",
                        "wrong-jacobian", "the Jacobian of an elementwise cube is diag(3 * x**2).")
        _cube_methods(Cube, 42, (4,))
        return
    x2 = c.randn(2, 3, seed=41, requires_grad=False)
    jac = under_func(Cube, "jacrev", x2, what="torch.func.jacrev(Cube.apply)")
    expected = torch.diag((3 * x2 ** 2).reshape(-1)).reshape(2, 3, 2, 3)
    c.require_close(jac, expected, "torch.func.jacrev(Cube.apply)(x) for x of shape (2, 3)", "wrong-jacobian",
                    "the Jacobian of an elementwise cube is diag(3 * x**2).")
    _cube_methods(Cube, 43, (2, 3, 4))


# ------------------------------------------------------------------------------------------ Softplus

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
EXTREMES = [-1e4, -800.0, -40.0, -0.0, 40.0, 800.0, 1e4]


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


def _softplus_methods(Softplus, seed: int, shape, jvp: bool = True) -> None:
    """Softplus's own methods, called directly (see require_own_methods)."""
    x = c.randn(*shape, seed=seed, scale=3.0, requires_grad=False)
    require_own_methods(Softplus, SOFTPLUS, x, F.softplus, seed=seed, jvp=jvp, tolerance=_tolerance(x.dtype))


def _values_case(Softplus, x, grad_output) -> None:
    shape = f"x of shape {tuple(x.shape)}, {x.dtype}"
    y = _run(Softplus.apply, x, what=f"Softplus.apply(x) for {shape}")
    _require_softplus(y, x, f"Softplus.apply(x) for {shape}")
    if y.dtype != x.dtype:
        c.fail("wrong-dtype", f"Softplus.apply(x) for {shape} has dtype {y.dtype}: keep x's dtype.")
    (grad,) = _run(c.backward_grads, y, [x], grad_output, what="Softplus.backward")
    _require_derivative(grad, x, grad_output, f"the gradient of Softplus.apply(x) for {shape}")


def softplus_values(Softplus, hidden: bool = False) -> None:
    """Values and gradient through ordinary autograd. Visible: a small float64 example and the extremes +-1e4;
    hidden: float32 extremes, random shapes, scales and seeds."""
    c.require_function(Softplus, SOFTPLUS)
    if not hidden:
        c.require_self_contained(Softplus, SOFTPLUS)
        x = torch.tensor([-3.0, -0.5, 0.0, 0.5, 3.0], dtype=torch.float64, requires_grad=True)
        _values_case(Softplus, x, torch.full_like(x, 2.0).detach())
        x = torch.tensor(EXTREMES, dtype=torch.float64, requires_grad=True)
        _values_case(Softplus, x, torch.ones_like(x).detach())
        return
    x = torch.tensor([-1e4, -100.0, -30.0, 30.0, 100.0, 1e4], dtype=torch.float32, requires_grad=True)
    _values_case(Softplus, x, torch.ones_like(x).detach())
    for seed, shape in enumerate(SOFTPLUS_SHAPES):
        for scale in (3.0, 1e3):
            x = c.randn(*shape, seed=100 + seed, scale=scale)
            _values_case(Softplus, x, c.randn(*shape, seed=110 + seed, requires_grad=False))


def softplus_gradcheck(Softplus, hidden: bool = False) -> None:
    """float64 gradcheck. Visible: one shape; hidden: several shapes, scales and seeds."""
    c.require_function(Softplus, SOFTPLUS)
    cases = [(0, shape, 1.0) for shape in SOFTPLUS_SHAPES] + [(1, (2, 3), 5.0), (2, (5,), 8.0)] \
        if hidden else [(0, (4,), 2.0)]
    for seed, shape, scale in cases:
        x = c.randn(*shape, seed=120 + seed, scale=scale)
        _cube_gradcheck(Softplus.apply, (x,), f"Softplus on shape {shape}", DERIVATIVE_HINT)


def _jvp_case(Softplus, x, t) -> None:
    what = f"torch.func.jvp(Softplus.apply, (x,), (t,)) for x of shape {tuple(x.shape)}, {x.dtype}"
    out, tangent = under_func(Softplus, "jvp", x, tangent=t, what=what)
    _require_softplus(out, x, f"the output of {what}")
    if isinstance(tangent, torch.Tensor) and tangent.shape == x.shape and bool(torch.isfinite(tangent).all()) \
            and not bool(torch.allclose(t, torch.ones_like(t))) \
            and bool(torch.allclose(tangent, torch.sigmoid(x), rtol=1e-6, atol=1e-9)):
        c.fail("jvp-ignores-tangent",
               f"the tangent of {what} is sigmoid(x), as if every input tangent were 1: your jvp ignores the "
               "tangent it receives. " + TANGENT_HINT)
    _require_derivative(tangent, x, t, f"the output tangent of {what}", code="wrong-jvp", hint=TANGENT_HINT)


def softplus_jvp(Softplus, hidden: bool = False) -> None:
    """torch.func.jvp: the output and its tangent J t = sigmoid(x) * t. Visible: one small example;
    hidden: random shapes and tangents, the extremes, float32."""
    c.require_function(Softplus, SOFTPLUS)
    if not hidden:
        x = torch.tensor([-2.0, 0.5, 3.0], dtype=torch.float64)
        _jvp_case(Softplus, x, torch.tensor([0.3, -1.0, 2.0], dtype=torch.float64))
        _softplus_methods(Softplus, 135, (3,))
        return
    for seed, shape in enumerate(SOFTPLUS_SHAPES):
        x = c.randn(*shape, seed=130 + seed, scale=4.0, requires_grad=False)
        _jvp_case(Softplus, x, c.randn(*shape, seed=140 + seed, requires_grad=False))
    for dtype in (torch.float64, torch.float32):
        x = torch.tensor(EXTREMES, dtype=dtype)
        _jvp_case(Softplus, x, c.randn(len(EXTREMES), seed=150, requires_grad=False, dtype=dtype))
    _softplus_methods(Softplus, 136, (2, 3))


def _jacfwd_case(Softplus, x) -> None:
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


def softplus_jacfwd(Softplus, hidden: bool = False) -> None:
    """torch.func.jacfwd(Softplus.apply) is diag(sigmoid(x)). Visible: shape (3,); hidden: (2, 3) and extremes."""
    c.require_function(Softplus, SOFTPLUS)
    if not hidden:
        _jacfwd_case(Softplus, torch.tensor([-1.0, 0.25, 2.0], dtype=torch.float64))
        _softplus_methods(Softplus, 165, (3,))
        return
    _jacfwd_case(Softplus, c.randn(2, 3, seed=160, scale=3.0, requires_grad=False))
    _jacfwd_case(Softplus, torch.tensor([-1e4, -50.0, 50.0, 1e4], dtype=torch.float64))
    _softplus_methods(Softplus, 166, (4,))


def _hessian_case(Softplus, x, weight=None) -> None:
    what = (f"torch.func.hessian(lambda t: {'(Softplus.apply(t) * w)' if weight is not None else 'Softplus.apply(t)'}"
            f".sum())(x) for x of shape {tuple(x.shape)}")
    hess = under_func(Softplus, "hessian", x, weight=weight, what=what)
    s = torch.sigmoid(x)
    diagonal = s * (1 - s) * (weight if weight is not None else 1.0)
    expected = torch.diag(diagonal.reshape(-1)).reshape(tuple(x.shape) * 2)
    if isinstance(hess, torch.Tensor) and tuple(hess.shape) == tuple(expected.shape) and not bool(
            torch.isfinite(hess).all()):
        c.fail("derivative-overflow", f"{what} has inf or NaN entries. " + DERIVATIVE_HINT)
    c.require_close(hess, expected, what, "not-twice-differentiable",
                    "the second derivative of softplus is sigmoid(x) * (1 - sigmoid(x)). " + SOFTPLUS_TWICE_HINT,
                    rtol=1e-9, atol=1e-12)


def softplus_hessian(Softplus, hidden: bool = False) -> None:
    """torch.func.hessian (jacfwd over jacrev): diag(sigmoid(x) (1 - sigmoid(x))). Visible: shape (3,);
    hidden: a weighted sum over shape (2, 3), the extremes, and gradgradcheck."""
    c.require_function(Softplus, SOFTPLUS)
    if not hidden:
        _hessian_case(Softplus, torch.tensor([-1.0, 0.25, 2.0], dtype=torch.float64))
        _softplus_methods(Softplus, 172, (3,))
        return
    _hessian_case(Softplus, c.randn(2, 3, seed=170, scale=3.0, requires_grad=False),
                  weight=c.randn(2, 3, seed=171, requires_grad=False))
    _hessian_case(Softplus, torch.tensor([-1e4, -50.0, 50.0, 1e4], dtype=torch.float64))
    for seed, shape in enumerate(SOFTPLUS_SHAPES[1:3]):
        x = c.randn(*shape, seed=175 + seed, scale=2.0)
        _cube_gradcheck(Softplus.apply, (x,), f"Softplus on shape {shape}", SOFTPLUS_TWICE_HINT, second=True)
    _softplus_methods(Softplus, 173, (2, 3))


def softplus_vmap(Softplus, hidden: bool = False) -> None:
    """torch.func.vmap(Softplus.apply) is softplus sample by sample. Visible: a (4, 3) batch; hidden: in_dims=1,
    scalars, the extremes, and per-sample jvp (vmap of jvp)."""
    c.require_function(Softplus, SOFTPLUS)
    xb = c.randn(4, 3, seed=180, scale=3.0, requires_grad=False)
    out = under_func(Softplus, "vmap", xb, what="torch.func.vmap(Softplus.apply)")
    _require_softplus(out, xb, "torch.func.vmap(Softplus.apply)(x) for x of shape (4, 3)")
    _softplus_methods(Softplus, 185 if not hidden else 186, (4,) if not hidden else (2, 3), jvp=hidden)
    if not hidden:
        return
    xt = c.randn(3, 4, 2, seed=181, scale=3.0, requires_grad=False)
    out = under_func(Softplus, "vmap", xt, in_dims=1, what="torch.func.vmap(Softplus.apply, in_dims=1)")
    rtol, atol = _tolerance(xt.dtype)
    c.require_close(out, F.softplus(xt).movedim(1, 0), "torch.func.vmap(Softplus.apply, in_dims=1)(x)", "wrong-vmap",
                    rtol=rtol, atol=atol)
    xs = torch.tensor(EXTREMES, dtype=torch.float64)
    out = under_func(Softplus, "vmap", xs, what="torch.func.vmap(Softplus.apply) over scalars")
    _require_softplus(out, xs, "torch.func.vmap(Softplus.apply)(x) over the scalars of x")
    xb, tb = c.randn(5, 3, seed=182, scale=3.0, requires_grad=False), c.randn(5, 3, seed=183, requires_grad=False)
    tangents = under_func(Softplus, "vmap(jvp)", xb, tangent=tb,
                          what="torch.func.vmap(lambda x, t: torch.func.jvp(Softplus.apply, (x,), (t,))[1])")
    _require_derivative(tangents, xb, tb, "per-sample tangents vmap(jvp(...))", code="wrong-jvp", hint=TANGENT_HINT)
