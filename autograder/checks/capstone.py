"""Checks for the capstone (notebook 14): `LogSumExp.apply(x, dim, keepdim)`.

Contract: log(sum(exp(x), dim)) like torch.logsumexp(x, dim, keepdim), for an int `dim` (negative allowed) and a
bool `keepdim`; finite and accurate for inputs of magnitude 1e4 (shift by the max); backward returns
(grad_x, None, None) with grad_x = grad_output (unsqueezed when keepdim=False) * exp(x - output); written in the
torch.func style (forward without ctx, setup_context, generate_vmap_rule = True) with a differentiable backward,
so that gradgradcheck and vmap work; a `jvp` (tensors saved with ctx.save_for_forward) returning the output's
tangent sum(exp(x - output) * x_t, dim, keepdim), so that torch.func.jvp, jacfwd and hessian work; saves x itself
plus reduced-size tensors only (no second x-sized tensor).
The trusted reference is torch.logsumexp (and torch.func's transforms of it, computed here), bound when this module
is imported.
"""

from __future__ import annotations

import functools

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks import torch_func as _func


NAME = "LogSumExp"
GRAD_HINT = ("d logsumexp(x)/dx = exp(x - logsumexp(x)) = softmax(x) along dim; backward returns grad_output times "
             "that (with grad_output and the saved output unsqueezed at dim when keepdim=False), then None, None.")
SHIFT_HINT = ("subtract the max along dim before exp (the log-sum-exp trick of notebook 07): "
              "m + log(sum(exp(x - m))) never overflows, and in backward use exp(x - output), never exp(x) / exp(output).")
EXPAND_HINT = ("grad_output has the output's shape: with keepdim=False the reduced dim is missing, so unsqueeze(dim) "
               "grad_output and the saved output before multiplying by exp(x - output), or they line up with the wrong "
               "dimension (notebook 03).")
JVP_HINT = ("jvp(ctx, x_t, dim_t, keepdim_t) returns the output's tangent: exp(x - output) * x_t summed over dim "
            "(with keepdim=ctx.keepdim), the saved output unsqueezed at dim first when keepdim=False; "
            "x and the output come from ctx.saved_tensors, saved in setup_context with ctx.save_for_forward.")
TWICE_HINT = ("Save what backward needs in setup_context with ctx.save_for_backward (x and the output), and build "
              "backward from differentiable torch operations on them, without .detach(), NumPy or torch.no_grad(): "
              "a second derivative differentiates your backward (notebooks 05 and 10).")

# (shape, dim, keepdim): square shapes make a wrongly aligned broadcast silent instead of an error.
# Forgetting to unsqueeze is harmless for dim 0 (broadcasting adds leading dims), so most cases reduce elsewhere.
CASES = [((3, 3), 1, False), ((3, 3), 0, True), ((2, 3, 4), -1, False), ((2, 3, 4), 1, True),
         ((4, 1, 3), 0, False), ((5,), 0, False), ((4, 4), -1, False), ((2, 2, 2), 1, False)]


# ------------------------------------------------------------------------------------------- helpers

def _apply(LSE, x, dim, keepdim, what=None, run=None):
    """LogSumExp.apply(x, dim, keepdim) (or `run(x, dim, keepdim)`, which calls it) with plain feedback on failure."""
    what = what or f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)}"
    try:
        return c.call(run or LSE.apply, x, dim, keepdim, what=what)
    except c.Mistake:
        raise
    except (RuntimeError, TypeError) as error:
        _func._explain_func(error, what)
        _explain_shape(error, what)
        raise


def _explain_shape(error, what):
    text = str(error)
    if "must match the size of tensor" in text or "is not broadcastable" in text or "Attempting to broadcast" in text:
        c.fail("no-unsqueeze", f"{what}: {text.splitlines()[0]}. " + EXPAND_HINT)


def _grads(y, x, g, what):
    try:
        return c.backward_grads(y, [x], g, what=what)
    except c.Mistake:
        raise
    except (RuntimeError, TypeError) as error:
        _func._explain_func(error, what)
        _explain_shape(error, what)
        raise


def _reference(x, dim, keepdim, g=None):
    """torch.logsumexp's value and gradient (for grad_output g), computed in float64, returned in x's dtype."""
    leaf = x.detach().to(torch.float64).requires_grad_(True)
    with torch.enable_grad():
        out = torch.logsumexp(leaf, dim, keepdim)
        weight = torch.ones_like(out) if g is None else g.detach().to(torch.float64)
        (grad,) = torch.autograd.grad(out, [leaf], weight)
    return out.detach().to(x.dtype), grad.to(x.dtype)


def _tolerance(x):
    if x.dtype == torch.float64:
        return 1e-9, 1e-9
    eps = torch.finfo(x.dtype).eps
    return 1e-5, 1e-6 + 16 * eps * float(x.detach().abs().max())


def _require_output_shape(y, x, dim, keepdim):
    expected = torch.logsumexp(x.detach(), dim, keepdim)
    if not isinstance(y, torch.Tensor):
        c.fail("not-a-tensor", f"LogSumExp.apply should return a tensor, got {type(y).__name__}.")
    if tuple(y.shape) != tuple(expected.shape):
        c.fail("wrong-output-shape",
               f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)} has shape {tuple(y.shape)}, "
               f"but torch.logsumexp gives {tuple(expected.shape)}: with keepdim=False the reduced dim disappears "
               "(squeeze it), with keepdim=True it stays, with size 1.")


def _check_case(LSE, x, dim, keepdim, seed, what_values, code_values, hint_values, code_grad, hint_grad):
    y = _apply(LSE, x, dim, keepdim)
    _require_output_shape(y, x, dim, keepdim)
    g = c.randn(*y.shape, seed=seed + 500, requires_grad=False, dtype=x.dtype)
    expected, expected_grad = _reference(x, dim, keepdim, g)
    rtol, atol = _tolerance(x)
    c.require_close(y, expected, what_values, code_values, hint_values, rtol=rtol, atol=atol)
    (grad,) = _grads(y, x, g, what=f"LogSumExp.backward (dim={dim}, keepdim={keepdim}, x of shape {tuple(x.shape)})")
    if grad is None:
        c.fail("no-graph", "x received no gradient: is the output connected to x through LogSumExp.apply?")
    c.require_close(grad, expected_grad,
                    f"the gradient of LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)}",
                    code_grad, hint_grad, rtol=rtol, atol=atol)


def _require_function(LSE):
    c.require_function(LSE, NAME)


# ------------------------------------------------------------------------------------------------ values

def values(LSE) -> None:
    """Visible: value and gradient of one small example, against torch.logsumexp."""
    _require_function(LSE)
    x = torch.tensor([[0.5, -1.0, 2.0, 0.0], [3.0, 1.0, -2.0, 0.25], [-0.5, -0.5, 1.5, 1.0]],
                     dtype=torch.float64, requires_grad=True)
    y = _apply(LSE, x, 1, False)
    _require_output_shape(y, x, 1, False)
    expected, _ = _reference(x, 1, False)
    c.require_close(y, expected, "LogSumExp.apply(x, 1, False)", "wrong-forward",
                    "the result is log(sum(exp(x), dim)), as torch.logsumexp(x, dim, keepdim).")
    g = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)
    _, expected_grad = _reference(x, 1, False, g)
    (grad,) = _grads(y, x, g, what="LogSumExp.backward")
    c.require_close(grad, expected_grad, "the gradient of LogSumExp.apply(x, 1, False) with grad_output = [1, 2, -1]",
                    "wrong-derivative", GRAD_HINT)


def values_hidden(LSE, seeds=(0, 1)) -> None:
    """Hidden: values and gradients over shapes, dims and keepdim, in float64 and float32 (dtype kept)."""
    _require_function(LSE)
    for seed in seeds:
        for k, (shape, dim, keepdim) in enumerate(CASES[:5]):
            dtype = torch.float32 if k % 2 else torch.float64
            x = c.randn(*shape, seed=seed * 10 + k, dtype=dtype)
            _check_case(LSE, x, dim, keepdim, seed * 10 + k,
                        f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape} ({dtype})", "wrong-forward",
                        "the result is log(sum(exp(x), dim)), as torch.logsumexp(x, dim, keepdim).",
                        "wrong-derivative", GRAD_HINT)


# --------------------------------------------------------------------------------------------- stability

def stability(LSE, seeds=(0, 1)) -> None:
    """Hidden: values and gradients stay finite and accurate at magnitudes 1e4 (overflow and underflow)."""
    _require_function(LSE)
    for seed in seeds:
        for label, shift, scale, dtype in (("entries of size 1e4", 0.0, 1e4, torch.float64),
                                           ("entries near -1e4", -1e4, 1.0, torch.float64),
                                           ("entries near +1e4", 1e4, 1.0, torch.float64),
                                           ("float32 entries of size 1e4", 0.0, 1e4, torch.float32)):
            base = c.randn(4, 6, seed=100 + seed, requires_grad=False, dtype=torch.float64) * scale + shift
            x = base.to(dtype).requires_grad_(True)
            y = _apply(LSE, x, 1, False)
            _require_output_shape(y, x, 1, False)
            if not bool(torch.isfinite(y).all()):
                c.fail("overflow", f"LogSumExp.apply(x, 1, False) for {label} returned {y.detach().tolist()}: exp "
                                   "overflowed (or underflowed to log(0)). " + SHIFT_HINT)
            g = torch.ones(4, dtype=dtype)
            (grad,) = _grads(y, x, g, what=f"LogSumExp.backward for {label}")
            if grad is not None and not bool(torch.isfinite(grad).all()):
                c.fail("unstable-backward", f"the gradient of LogSumExp for {label} contains inf or nan. " + SHIFT_HINT)
            expected, expected_grad = _reference(x, 1, False, g)
            rtol, atol = _tolerance(x)
            c.require_close(y, expected, f"LogSumExp.apply(x, 1, False) for {label}", "inaccurate-forward",
                            SHIFT_HINT, rtol=rtol, atol=atol)
            grad_atol = 1e-9 if dtype == torch.float64 else 16 * torch.finfo(dtype).eps * float(x.detach().abs().max())
            c.require_close(grad, expected_grad, f"the gradient of LogSumExp for {label}", "inaccurate-backward",
                            SHIFT_HINT, rtol=1e-6, atol=grad_atol)


# ------------------------------------------------------------------------------------------------ shapes

def shapes(LSE) -> None:
    """Hidden: output and gradient shapes for every dim (negative too) and both keepdim values, with a random
    grad_output; square inputs catch a grad_output broadcast along the wrong dimension."""
    _require_function(LSE)
    k = 0
    for shape in ((3, 3), (2, 3, 4), (4, 1, 3), (5,)):
        for dim in range(-len(shape), len(shape)):
            for keepdim in (True, False):   # keepdim=True first: a wrong derivative is not blamed on unsqueeze
                x = c.randn(*shape, seed=200 + k)
                _check_case(LSE, x, dim, keepdim, 200 + k,
                            f"LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {shape}", "wrong-forward",
                            "the result is log(sum(exp(x), dim)), as torch.logsumexp(x, dim, keepdim).",
                            "no-unsqueeze" if not keepdim else "wrong-derivative",
                            EXPAND_HINT if not keepdim else GRAD_HINT)
                k += 1


# ------------------------------------------------------------------------------------------ None for dim

def _direct_backward(LSE, x, dim, keepdim, ctx):
    """forward/setup_context/backward called directly with a stand-in ctx (either style of Function)."""
    if c.uses_setup_context(LSE):
        out = c.call(LSE.forward, x, dim, keepdim, what="LogSumExp.forward(x, dim, keepdim)")
        c.call(LSE.setup_context, ctx, (x, dim, keepdim), out, what="LogSumExp.setup_context")
    else:
        out = c.call(LSE.forward, ctx, x, dim, keepdim, what="LogSumExp.forward(ctx, x, dim, keepdim)")
    if not isinstance(out, torch.Tensor):
        c.fail("not-a-tensor", f"LogSumExp.forward should return a tensor, got {type(out).__name__}.")
    try:
        return out, c.call(LSE.backward, ctx, torch.ones_like(out), what="LogSumExp.backward")
    except c.Mistake:
        raise
    except RuntimeError as error:
        _explain_shape(error, f"LogSumExp.backward called directly (dim={dim}, keepdim={keepdim})")
        raise


def none_for_dim_and_keepdim(LSE) -> None:
    """Hidden: backward called directly returns exactly (grad_x, None, None)."""
    _require_function(LSE)
    for dim, keepdim in ((1, False), (0, True)):
        x = c.randn(3, 4, seed=300 + dim, requires_grad=False)
        ctx = behaviour.stand_in_ctx(NAME, (True, False, False))
        _, grads = _direct_backward(LSE, x, dim, keepdim, ctx)
        if isinstance(grads, torch.Tensor) or not isinstance(grads, (tuple, list)):
            c.fail("missing-none",
                   "LogSumExp.backward returned a single value, but forward takes three inputs (x, dim, keepdim): "
                   "return (grad_x, None, None), None for the int dim and for the bool keepdim.")
        if len(grads) != 3:
            c.fail("wrong-arity",
                   f"LogSumExp.backward returned {len(grads)} values, but forward takes three inputs (x, dim, "
                   "keepdim): return (grad_x, None, None).")
        if grads[1] is not None or grads[2] is not None:
            c.fail("missing-none",
                   "LogSumExp.backward must return None for dim and for keepdim (they are an int and a bool, not "
                   f"tensors), got {type(grads[1]).__name__} and {type(grads[2]).__name__}.")
        c.require_shape(grads[0], x.shape, f"the gradient of x returned by backward (dim={dim}, keepdim={keepdim})",
                        "wrong-grad-shape")


# ---------------------------------------------------------------------------------- gradcheck, gradgrad

def gradcheck(LSE, seeds=(0, 1)) -> None:
    """Hidden: float64 gradcheck over shapes, dims and keepdim."""
    _require_function(LSE)
    for seed in seeds:
        for k, (shape, dim, keepdim) in enumerate(sorted(CASES, key=lambda case: not case[2])):
            x = c.randn(*shape, seed=400 + 10 * seed + k)
            what = f"LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
            try:
                c.gradcheck(lambda t: LSE.apply(t, dim, keepdim), (x,), what,
                            hint=EXPAND_HINT if not keepdim else GRAD_HINT)
            except c.Mistake:
                raise
            except (RuntimeError, TypeError) as error:
                _func._explain_func(error, what)
                _explain_shape(error, what)
                raise


def gradgradcheck(LSE, seeds=(0,)) -> None:
    """Hidden: float64 gradgradcheck (backward differentiable, output saved and used)."""
    _require_function(LSE)
    for seed in seeds:
        for k, (shape, dim, keepdim) in enumerate(CASES[:6]):
            x = c.randn(*shape, seed=450 + 10 * seed + k)
            what = f"LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
            try:
                c.gradgradcheck(lambda t: LSE.apply(t, dim, keepdim), (x,), what, hint=TWICE_HINT)
            except c.Mistake:
                raise
            except (RuntimeError, TypeError) as error:
                _func._explain_func(error, what)
                _explain_shape(error, what)
                raise


# -------------------------------------------------------------------------------------------------- vmap

def vmap(LSE) -> None:
    """Hidden: torch.func.vmap over LogSumExp (values, other in_dims) and per-sample gradients vmap(grad), run
    where LogSumExp lives (`torch_func.transformed`) and compared here."""
    _require_function(LSE)
    xb = c.randn(5, 4, 3, seed=500, requires_grad=False)
    for dim, keepdim in ((0, False), (-1, True)):
        what = f"torch.func.vmap(lambda t: LogSumExp.apply(t, {dim}, {keepdim}))"
        out = _func.under_func(LSE, "vmap", xb, args=(dim, keepdim), what=what)
        expected = torch.stack([torch.logsumexp(sample, dim, keepdim) for sample in xb])
        c.require_close(out, expected, f"{what}(x) for x of shape (5, 4, 3)", "wrong-vmap",
                        "each sample must get its own log-sum-exp along dim.")
    what = "torch.func.vmap(..., in_dims=1)"
    out = _func.under_func(LSE, "vmap", xb, args=(1, False), in_dims=1, what=what)
    expected = torch.stack([torch.logsumexp(xb[:, j], 1) for j in range(xb.shape[1])])
    c.require_close(out, expected, "torch.func.vmap(lambda t: LogSumExp.apply(t, 1, False), in_dims=1)(x)",
                    "wrong-vmap")
    x2 = c.randn(6, 4, seed=501, requires_grad=False)
    per_sample = _func.under_func(LSE, "vmap(grad)", x2, args=(0, False), summed=False,
                                  what="torch.func.vmap(torch.func.grad(lambda t: LogSumExp.apply(t, 0, False)))")
    c.require_close(per_sample, torch.softmax(x2, 1), "per-sample gradients vmap(grad(...)) (they are softmax(x))",
                    "wrong-derivative", GRAD_HINT)
    _own_methods(LSE, 502, (3, 3), 1, False)
    _own_methods(LSE, 503, (2, 3, 4), -1, True)


def _own_methods(LSE, seed: int, shape, dim: int, keepdim: bool, jvp: bool = False) -> None:
    """LogSumExp's own methods, called directly, as torch.func calls them (torch_func.require_own_methods)."""
    x = c.randn(*shape, seed=seed, requires_grad=False)
    try:
        _func.require_own_methods(LSE, NAME, x, torch.logsumexp, args=(dim, keepdim), seed=seed, jvp=jvp,
                                  tolerance=(1e-9, 1e-9))
    except c.Mistake:
        raise
    except (RuntimeError, TypeError) as error:
        _explain_forward(error, f"LogSumExp's methods called directly (dim={dim}, keepdim={keepdim})")
        _explain_shape(error, f"LogSumExp's methods called directly (dim={dim}, keepdim={keepdim})")
        raise


# ------------------------------------------------------------------------------------------ forward mode

NO_JVP_MSG = "You must implement the jvp function"
SIZE_MSG = "Trying to set a forward gradient that has a different size"
COUNT_MSG = "jvp returned an invalid number of forward gradients"


@c.probe
def forward_transform(LSE, how: str, x, dim: int, keepdim: bool, tangent=None):
    """In the learner's process (torch.func transforms the real Function, never a proxy of it): a forward-mode
    transform of f(t) = LSE.apply(t, dim, keepdim) at x. Only the tensors it computes come back.

    how: "jvp" (the output and its tangent for `tangent`), "jacfwd" (the Jacobian), "hessian" (of f(t).sum()).
    """

    def f(t):
        return behaviour.function_apply(LSE, t, dim, keepdim)

    if how == "jvp":
        return torch.func.jvp(f, (x,), (tangent,))
    if how == "jacfwd":
        return torch.func.jacfwd(f)(x)
    if how == "hessian":
        return torch.func.hessian(lambda t: f(t).sum())(x)
    raise ValueError(f"unknown transform {how!r}")


def _reference_forward(how, x, dim, keepdim, tangent=None):
    """The same transform of torch.logsumexp, computed here in float64, returned in x's dtype."""
    x64 = x.detach().to(torch.float64)

    def f(t):
        return torch.logsumexp(t, dim, keepdim)

    if how == "jvp":
        value, out = torch.func.jvp(f, (x64,), (tangent.detach().to(torch.float64),))
        return value.to(x.dtype), out.to(x.dtype)
    if how == "jacfwd":
        return torch.func.jacfwd(f)(x64).to(x.dtype)
    return torch.func.hessian(lambda t: f(t).sum())(x64).to(x.dtype)


def _explain_forward(error: Exception, what: str) -> None:
    """Plain words for what forward-mode AD raises on a Function whose jvp is missing or malformed."""
    text = str(error)
    if NO_JVP_MSG in text:
        c.fail("no-jvp", f"{what}: PyTorch refused (\"{NO_JVP_MSG} for custom autograd.Function to use it with "
                         "forward mode AD\"). torch.func.jvp, jacfwd and hessian (jacfwd of jacrev) run forward mode: "
                         "add a @staticmethod jvp(ctx, x_t, dim_t, keepdim_t) to LogSumExp. " + JVP_HINT)
    if (isinstance(error, ValueError) and "not enough values to unpack" in text and "got 0" in text) or (
            isinstance(error, IndexError) and "out of range" in text):
        c.fail("no-save-for-forward",
               f"{what}: jvp found nothing in ctx.saved_tensors ({text}). Tensors saved with ctx.save_for_backward "
               "are for backward only: in setup_context, also call ctx.save_for_forward(x, output).")
    if SIZE_MSG in text:
        c.fail("wrong-tangent-shape",
               f"{what}: jvp returned a tangent whose shape is not the output's ({text.splitlines()[0]}). Sum over "
               "dim with keepdim=ctx.keepdim, so that the tangent has the output's shape for both keepdim values.")
    if COUNT_MSG in text:
        c.fail("jvp-arity",
               f"{what}: {text.splitlines()[0]}. jvp returns one tangent per output of forward (LogSumExp has one "
               "output), not one value per input as backward does: return a single tensor, no Nones.")


def _forward(LSE, how, x, dim, keepdim, tangent=None, what=""):
    """forward_transform(...) with plain feedback on failure."""
    what = what or f"torch.func.{how} of LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)}"
    try:
        return forward_transform(LSE, how, x, dim, keepdim, tangent)
    except c.Mistake:
        raise
    except NotImplementedError as error:
        _explain_forward(error, what)
        c.fail("not-implemented", f"{what}: LogSumExp is not implemented yet (one of its methods still raises "
                                  "NotImplementedError): write forward, setup_context, backward and jvp.")
    except (RuntimeError, TypeError, ValueError, IndexError) as error:
        _explain_forward(error, what)
        _func._explain_func(error, what)
        _explain_shape(error, what)
        raise


def _check_jvp(LSE, x, dim, keepdim, t, rows=None):
    """Value and tangent of torch.func.jvp for the tangent t, against torch.logsumexp's (on `rows` of the
    output only, if given); a tangent that does not follow t is named as such."""
    what = f"torch.func.jvp of LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)} ({x.dtype})"
    value, tangent = _forward(LSE, "jvp", x, dim, keepdim, t, what=what)
    expected_value, expected = _reference_forward("jvp", x, dim, keepdim, t)
    rtol, atol = _tolerance(x[torch.isfinite(x)])
    c.require_close(value, expected_value, f"the value returned by {what}", "wrong-forward",
                    "the result is log(sum(exp(x), dim)), as torch.logsumexp(x, dim, keepdim).", rtol=rtol, atol=atol)
    c.require_shape(tangent, expected.shape, f"the output's tangent from {what}", "wrong-tangent-shape")
    if rows is not None:
        tangent, expected = tangent[rows], expected[rows]
    if not bool(torch.allclose(tangent, expected, rtol=rtol, atol=atol)):
        _, doubled = _forward(LSE, "jvp", x, dim, keepdim, 2 * t, what=what)
        doubled = doubled[rows] if rows is not None else doubled
        if bool(torch.allclose(doubled, tangent, rtol=rtol, atol=atol)):
            c.fail("jvp-ignores-tangent",
                   f"{what}: the output's tangent is the same for the tangent x_t and for 2 * x_t, so your jvp "
                   "ignores the tangent it receives. The output's tangent is linear in x_t: "
                   "(exp(x - output) * x_t) summed over dim. " + JVP_HINT)
    c.require_close(tangent, expected, f"the output's tangent from {what}", "wrong-jvp", JVP_HINT,
                    rtol=rtol, atol=atol)


def _check_matrix(LSE, how, x, dim, keepdim):
    what = f"torch.func.{how} of LogSumExp.apply(x, {dim}, {keepdim}) for x of shape {tuple(x.shape)}"
    if how == "hessian":
        what = f"torch.func.hessian of LogSumExp.apply(x, {dim}, {keepdim}).sum() for x of shape {tuple(x.shape)}"
    got = _forward(LSE, how, x, dim, keepdim, what=what)
    expected = _reference_forward(how, x, dim, keepdim)
    rtol, atol = _tolerance(x)
    hint = JVP_HINT if how == "jacfwd" else (
        "hessian is jacfwd(jacrev(f)): forward mode through your backward, whose saved output gets its tangent from "
        "your jvp. Both must be right, and backward made of torch operations. " + JVP_HINT)
    c.require_close(got, expected, what, "wrong-jvp" if how == "jacfwd" else "wrong-hessian", hint,
                    rtol=rtol, atol=atol)


def forward_mode(LSE) -> None:
    """Visible: torch.func.jvp and jacfwd of one small example, against torch.logsumexp's."""
    _require_function(LSE)
    x = torch.tensor([[0.5, -1.0, 2.0], [3.0, 1.0, -2.0]], dtype=torch.float64)
    t = torch.tensor([[1.0, 0.0, -2.0], [0.5, 3.0, 1.0]], dtype=torch.float64)
    _check_jvp(LSE, x, 1, False, t)
    _check_matrix(LSE, "jacfwd", x, 1, False)
    _own_methods(LSE, 805, (2, 3), 1, False, jvp=True)


def forward_mode_hidden(LSE, seeds=(0, 1)) -> None:
    """Hidden: jvp for every case (both keepdim, negative dims, float32 too) with random tangents; jacfwd and
    hessian over shapes; rows with masked (-inf) positions and a fully masked row (its value -inf; its tangent
    is nan in torch.logsumexp and is not compared)."""
    _require_function(LSE)
    for seed in seeds:
        for k, (shape, dim, keepdim) in enumerate(CASES):
            dtype = torch.float32 if k % 3 == 2 else torch.float64
            x = c.randn(*shape, seed=800 + 10 * seed + k, requires_grad=False, dtype=dtype)
            t = c.randn(*shape, seed=900 + 10 * seed + k, requires_grad=False, dtype=dtype)
            _check_jvp(LSE, x, dim, keepdim, t)
    for k, (shape, dim, keepdim) in enumerate((((3, 3), 1, False), ((2, 3, 4), -1, True), ((4, 2), 0, False))):
        _check_matrix(LSE, "jacfwd", c.randn(*shape, seed=950 + k, requires_grad=False), dim, keepdim)
    for k, (shape, dim, keepdim) in enumerate((((5,), 0, False), ((3, 4), 1, False), ((2, 3, 2), 1, True))):
        _check_matrix(LSE, "hessian", c.randn(*shape, seed=960 + k, requires_grad=False), dim, keepdim)
    inf = float("inf")
    x = c.randn(3, 4, seed=970, requires_grad=False)
    x[0] = -inf                   # every position masked: value -inf
    x[1, 1:3] = -inf              # two positions masked
    t = c.randn(3, 4, seed=971, requires_grad=False)
    _check_jvp(LSE, x, 1, False, t, rows=torch.tensor([1, 2]))
    for k, (shape, dim, keepdim) in enumerate(CASES[:4]):
        _own_methods(LSE, 980 + k, shape, dim, keepdim, jvp=True)


# ------------------------------------------------------------------------------------------------ memory

def _storage(t):
    return t.untyped_storage()


@c.probe
def kept_for_backward(LSE, x, dim, keepdim) -> dict:
    """In the learner's process (the judge's graph has one opaque node per call): LogSumExp.apply(x, dim, keepdim)
    with saved-tensor hooks on. The output (with its grad_fn's name), the bytes of its storage and of x's, and
    every distinct storage kept for backward (seen by the hook, or read off the graph: what its node packed and
    every tensor among the ctx's attributes, in containers too): its bytes, whether it is x's or the output's,
    where on ctx it was found, and the tensor kept."""
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = LSE.apply(x, dim, keepdim)
    if not isinstance(out, torch.Tensor):
        return {"output": out}
    x_key, out_key = _storage(x).data_ptr(), _storage(out).data_ptr()
    kept = {}
    # What the hooks saw, then the graph itself (what it packed, and the ctx's attributes, containers included).
    for where, t in [("saved", t) for t in saved] + behaviour.kept_by_graph([out]):
        key, nbytes = behaviour.storage_of(t)
        if key not in kept:
            kept[key] = {"nbytes": nbytes, "is_x": key == x_key, "is_output": key == out_key,
                         "tensor": t.detach().clone(), "where": where if where.startswith("ctx.") else ""}
    return {"output": out, "output_nbytes": _storage(out).nbytes(), "x_nbytes": _storage(x).nbytes(),
            "kept": list(kept.values())}


def _describe(kept: dict, x, dim: int):
    what = _what(kept, x, dim)
    return f"{what} kept as {kept['where']}" if kept.get("where") else what


def _what(kept: dict, x, dim: int):
    if kept["is_output"]:
        return "the output"
    t = kept["tensor"]
    if t.shape == x.shape:
        if bool(torch.allclose(t, x.detach())):
            return "a copy of x"
        if bool(torch.allclose(t, torch.softmax(x.detach(), dim))):
            return "softmax(x) (that is, exp(x - output))"
        if bool(torch.allclose(t, torch.exp(x.detach()))):
            return "exp(x)"
        return f"an x-sized tensor of shape {tuple(t.shape)}"
    return f"a tensor of shape {tuple(t.shape)}"


def saved_memory(LSE, cases=(CASES[0], CASES[2], CASES[3])) -> None:
    """Besides x itself, LogSumExp keeps only reduced-size tensors (like the output) for backward: on inputs
    the value tests use too (no input is the memory test's alone)."""
    _require_function(LSE)
    for k, (shape, dim, keepdim) in enumerate(cases):
        x = c.randn(*shape, seed=600 + k)
        facts = _apply(LSE, x, dim, keepdim, run=functools.partial(kept_for_backward, LSE))
        c.require_own_node(facts["output"], LSE, NAME)
        limit = facts["output_nbytes"]
        too_big = [kept for kept in facts["kept"] if not kept["is_x"] and kept["nbytes"] > limit]
        if too_big:
            total = sum(kept["nbytes"] for kept in too_big)
            names = ", ".join(_describe(kept, x, dim) for kept in too_big)
            c.fail("saves-too-much",
                   f"for x of shape {shape} (dim={dim}, keepdim={keepdim}), LogSumExp keeps {total} bytes for "
                   f"backward besides x ({names}), while x itself is {facts['x_nbytes']} bytes and the output "
                   f"{limit} bytes. Save x and the output with ctx.save_for_backward(x, output) and recompute "
                   "exp(x - output) in backward: one exp, no second x-sized tensor kept alive (notebook 08). "
                   "torch.logsumexp keeps exactly these two.")
