"""Checks for notebook 16 (a compiled kernel as a custom operator).

The course's C++ kernel (autograder/kernels/rms_norm.cpp, built outside every learner's process) gives two ops,
`torch.ops.course_kernels.rms_norm(x, eps) -> (out, rstd)` and `rms_norm_backward(grad_out, x, rstd) -> grad_x`,
with no fake kernel and no autograd formula. The learner writes:

- `rms_norm`, the custom operator `course::rms_norm` that calls the forward kernel, and its fake kernel. Checked
  for values (calling the operator) and for the fake kernel (called here on real inputs, a transposed one among
  them: it must describe both outputs, strides included, as the kernel returns them).
- `grad_rms_norm`: `rms_norm_setup_context` and `rms_norm_backward`, given to `register_autograd`. Checked on a
  reference operator of the checks' own (`course_check::rms_norm`, the same kernel and a right fake kernel) with
  the learner's two functions registered on it, so a mistake in `rms_norm` costs nothing here: the gradient, the
  saved tensors (an in-place change of x after the forward is caught), rstd (not differentiable, or its true
  gradient), and opcheck, which traces the backward on fake tensors.

When grading, the learner's names are proxies here (autograder/engine/sandbox/proxy.py); values, gradients and the
fake kernel's outputs are computed by calling through them and compared here. Only `with_autograd` (the
reference operator, made and registered in the learner's process) and `opcheck_results` run there.
Errors become plain feedback through the Rule tables `RULES` and `OPCHECK_RULES`.
"""

from __future__ import annotations

import torch

from autograder import kernels
from autograder.checks import common as c
from autograder.checks.compile_export import opcheck_results
from autograder.checks.explain import Rule, explained, literal

QUALNAME = "course::rms_norm"
EPS = 1e-6
FAKE_HINT = ("the fake kernel returns what the C++ kernel returns, without computing it: out of x's shape and "
             "rstd of shape x.shape[:-1], both in x's dtype and, as the kernel's contract says, contiguous whatever "
             "x's strides.")
GRAD_HINT = ("backward returns (grad_x, None): grad_x from the compiled backward kernel with the saved x and "
             "rstd, None for eps.")
TRACED_HINT = ("torch.compile, torch.export and opcheck run backward on fake tensors too, where the compiled "
               "kernel cannot run: call it through a custom operator of your own that has a fake kernel (or "
               "compute the gradient with torch operations).")

RULES = (
    c.NOT_IMPLEMENTED,
    Rule("not-implemented", error="names-not-implemented", message="{what}: part of the answer is not implemented yet."),
    Rule("no-autograd", error="no-autograd",
         message="{what}: autograd has no backward for the operator: register one with register_autograd."),
    Rule("wrong-arity", error="wrong-arity",
         message="{what}: backward returned the wrong number of values. " + literal(GRAD_HINT)),
    Rule("gradient-for-eps", error="missing-none",
         message="{what}: backward returned a gradient for eps, a float. " + literal(GRAD_HINT)),
    Rule("kernel-input", r"course_kernels",
         "{what}: the compiled kernel refused its inputs ({line}).", types=(RuntimeError,)),
)
ERROR = Rule("op-error", None, "{what} raised {kind}: {line}")
OPCHECK_RULES = (
    Rule("backward-not-traceable", r"course_kernels\.rms_norm_backward|course_kernels::rms_norm_backward",
         "{what}: backward calls the compiled kernel course_kernels.rms_norm_backward directly. "
         + literal(TRACED_HINT)),
    Rule("backward-not-traceable", error=("no-fake-impl", "no-meta-kernel"), message=
         "{what}: backward calls an operator with no fake kernel ({line}). " + literal(TRACED_HINT)),
) + RULES + (Rule("opcheck-failed", None, "{what} failed: {line}"),)


def _call(fn, *args, what: str, rules: tuple = RULES + (ERROR,)):
    with explained(what, rules):
        return fn(*args)


def _grads(output, x, weights, what: str):
    """The gradient of `output` (weighted) with respect to x, autograd's errors read by RULES (PyTorch counts an
    input of its own in the operator's backward, so its numbers are not quoted)."""
    return _call(lambda: torch.autograd.grad(output, [x], weights, allow_unused=True)[0], what=what)


def torch_rms_norm(x: torch.Tensor, eps: float = EPS):
    """(out, rstd) of RMS normalisation over the last dim, in torch operations."""
    rstd = torch.rsqrt((x * x).mean(-1) + eps)
    return x * rstd.unsqueeze(-1), rstd


def _input(shape, dtype, seed, transposed=False, requires_grad=False):
    x = c.randn(*(shape[::-1] if transposed else shape), seed=seed, requires_grad=False, dtype=dtype)
    x = x.transpose(-1, -2) if transposed else x
    return x.requires_grad_(requires_grad)


def _describe(shape, dtype, transposed) -> str:
    return f"a {dtype} x of shape {tuple(shape)}" + (" (a transposed, non-contiguous view)" if transposed else "")


def _two_tensors(out, what: str):
    if isinstance(out, torch.Tensor) or not isinstance(out, (tuple, list)):
        c.fail("wrong-outputs", f"{what} returned {type(out).__name__}; it returns two tensors, (out, rstd), as "
                                "the kernel does: declare the return type tuple[torch.Tensor, torch.Tensor].")
    if len(out) != 2 or not all(isinstance(t, torch.Tensor) for t in out):
        c.fail("wrong-outputs", f"{what} returned {len(out)} values; it returns two tensors, (out, rstd).")
    return out


@c.probe
def op_facts(op) -> dict:
    """What kind of object `op` is, and its fake kernel (probe: read where op lives)."""
    is_op = isinstance(op, torch.library.CustomOpDef)
    return {"type": type(op).__name__, "is_custom_op": is_op,
            "qualname": str(getattr(op, "_qualname", "")) if is_op else None,
            "has_fake": is_op and getattr(op, "_abstract_fn", None) is not None}


def require_op(op, name: str = "rms_norm") -> dict:
    if op is None:
        c.fail("not-defined", f"`{name}` is not defined: run (or write) its answer cell.")
    facts = op_facts(op)
    if not facts["is_custom_op"]:
        c.fail("not-a-custom-op", f"`{name}` should be the object @torch.library.custom_op(\"{QUALNAME}\", "
                                  f"mutates_args=()) returns, got {facts['type']}.")
    if facts["qualname"] != QUALNAME:
        c.fail("wrong-op-name", f"the custom operator is named {facts['qualname']!r}; name it {QUALNAME!r}.")
    return facts


# ------------------------------------------------------------------------------------------- rms_norm

# (shape, dtype, transposed, seed)
VALUES_DEFAULT = (((3, 5), torch.float64, False, 160), ((4, 3), torch.float32, True, 161))
VALUES_CASES = (((2, 3, 6), torch.float64, False, 162), ((7,), torch.float32, False, 163),
                ((5, 2), torch.float64, True, 164))
FAKE_DEFAULT = (((3, 5), torch.float64, False, 165), ((4, 3), torch.float64, True, 166))
FAKE_CASES = (((2, 3, 6), torch.float32, False, 167), ((6,), torch.float64, False, 168),
              ((2, 5), torch.float32, True, 169))


def values(op, cases=VALUES_DEFAULT) -> None:
    """rms_norm(x, eps) returns the kernel's (out, rstd), x unchanged: computed by calling the operator here
    and compared with RMS normalisation in torch operations."""
    require_op(op)
    for shape, dtype, transposed, seed in cases:
        x = _input(shape, dtype, seed, transposed)
        original = x.clone()
        what = f"rms_norm(x, {EPS}) for {_describe(shape, dtype, transposed)}"
        out, rstd = _two_tensors(_call(op, x, EPS, what=what), what)
        if not bool(torch.equal(x, original)):
            c.fail("kernel-mutates-input", f"{what} changed x, although mutates_args=() promises it does not.")
        expected_out, expected_rstd = torch_rms_norm(original)
        tol = (1e-5, 1e-6) if dtype == torch.float32 else (1e-10, 1e-12)
        c.require_close(out, expected_out, f"the first output (out) of {what}", "wrong-forward",
                        "the operator returns what torch.ops.course_kernels.rms_norm(x, eps) returns.", *tol)
        c.require_close(rstd, expected_rstd, f"the second output (rstd) of {what}", "wrong-forward",
                        "the operator returns what torch.ops.course_kernels.rms_norm(x, eps) returns.", *tol)


def fake_kernel(op, cases=FAKE_DEFAULT) -> None:
    """The registered fake kernel, called here on real inputs (it never reads their data), describes both outputs
    as the C++ kernel returns them: shapes, dtypes, devices and strides (a transposed x among the inputs). The
    real outputs are computed here, so a mistake in the operator's body costs nothing here."""
    facts = require_op(op)
    if not facts["has_fake"]:
        c.fail("no-fake-kernel", "rms_norm has no fake kernel: torch.compile, torch.export and opcheck run the "
                                 "operator on fake tensors (shape and dtype, no data), where the C++ kernel cannot "
                                 "run. Register one with @rms_norm.register_fake.")
    for shape, dtype, transposed, seed in cases:
        x = _input(shape, dtype, seed, transposed)
        what = f"the fake kernel of rms_norm, for {_describe(shape, dtype, transposed)}"
        real = torch_rms_norm(x.contiguous())                 # what the kernel returns: new contiguous tensors
        fake = _call(op._abstract_fn, x, EPS, what=what)
        fake = _two_tensors(fake, what)
        for name, r, f in (("out", real[0], fake[0]), ("rstd", real[1], fake[1])):
            if (tuple(f.shape), f.dtype, f.device) != (tuple(r.shape), r.dtype, r.device):
                c.fail("fake-kernel-mismatch",
                       f"{what} describes {name} as shape {tuple(f.shape)}, {f.dtype}, but the kernel returns shape "
                       f"{tuple(r.shape)}, {r.dtype}. " + FAKE_HINT)
            if tuple(f.stride()) != tuple(r.stride()):
                c.fail("fake-kernel-strides",
                       f"{what} describes {name} with strides {tuple(f.stride())}, but the kernel returns strides "
                       f"{tuple(r.stride())}: the kernel's contract says its outputs are contiguous whatever x's "
                       "layout, and a fake kernel that copies x's layout describes another tensor.")


# -------------------------------------------------------------------------------------- grad_rms_norm

_REFERENCE = {}


def _reference_op():
    """`course_check::rms_norm`: the kernel and a right fake kernel, made once per process."""
    if "op" not in _REFERENCE:
        kernels.load(allow_build=False)

        @torch.library.custom_op("course_check::rms_norm", mutates_args=())
        def checked(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
            return torch.ops.course_kernels.rms_norm(x, eps)

        @checked.register_fake
        def _(x, eps):
            return x.new_empty(x.shape), x.new_empty(x.shape[:-1])

        _REFERENCE["op"] = checked
    return _REFERENCE["op"]


@c.probe
def with_autograd(setup_context, backward):
    """In the learner's process: the reference operator with the learner's setup_context and backward registered
    on it (it crosses as a handle)."""
    op = _reference_op()
    op.register_autograd(backward, setup_context=setup_context)
    return op


def _registered(setup_context, backward):
    for name, fn in (("rms_norm_setup_context", setup_context), ("rms_norm_backward", backward)):
        if fn is None:
            c.fail("not-defined", f"`{name}` is not defined: run (or write) its answer cell.")
    return _call(with_autograd, setup_context, backward, what="register_autograd(rms_norm_backward, "
                                                                "setup_context=rms_norm_setup_context)")


# (shape, dtype, seed)
GRADIENT_DEFAULT = (((3, 5), torch.float64, 170),)
GRADIENT_CASES = (((2, 3, 6), torch.float64, 171), ((7,), torch.float64, 172), ((4, 3), torch.float32, 173))
SAVED_DEFAULT = (((3, 5), 174),)
SAVED_CASES = (((2, 4, 3), 175),)
RSTD_DEFAULT = (((3, 5), 176),)
RSTD_CASES = (((2, 3, 4), 177),)
TRACED_DEFAULT = (((3, 5), torch.float64, 178),)
TRACED_CASES = (((2, 3, 4), torch.float32, 179),)


def gradient(setup_context, backward, cases=GRADIENT_DEFAULT) -> None:
    """The gradient of out, weighted by a random grad_out, matches the derivative of RMS normalisation; a float64
    gradcheck of out passes."""
    op = _registered(setup_context, backward)
    for shape, dtype, seed in cases:
        x = _input(shape, dtype, seed, requires_grad=True)
        what = f"rms_norm(x, {EPS}) for a {dtype} x of shape {shape}, backward"
        out, _ = _two_tensors(_call(op, x, EPS, what=what), what)
        weights = c.randn(*shape, seed=seed + 1000, requires_grad=False, dtype=dtype)
        grad = _grads(out, x, weights, what)
        leaf = x.detach().clone().requires_grad_(True)
        (expected,) = torch.autograd.grad(torch_rms_norm(leaf)[0], leaf, weights)
        if grad is None:
            c.fail("no-gradient", f"{what} gave x no gradient. " + GRAD_HINT)
        tol = (1e-4, 1e-5) if dtype == torch.float32 else (1e-8, 1e-10)
        c.require_close(grad, expected, f"the gradient of x through out ({dtype})", "wrong-derivative",
                        "the compiled backward kernel takes (grad_out, x, rstd): x is the operator's input, and "
                        "rstd its second output, saved in setup_context.", *tol)
        if dtype == torch.float64:
            _call(c.gradcheck, lambda t: op(t, EPS)[0], (x,), what, "wrong-derivative", GRAD_HINT, what=what)


def saved(setup_context, backward, cases=SAVED_DEFAULT) -> None:
    """x changed in place after the forward: backward must refuse (the version counter of a tensor saved with
    ctx.save_for_backward), not compute with the changed values (a gradient wrong in another way is the gradient
    test's point, not this one's)."""
    op = _registered(setup_context, backward)
    for shape, seed in cases:
        leaf = _input(shape, torch.float64, seed, requires_grad=True)
        x = leaf * 1.0                                   # a non-leaf the caller may change in place
        what = f"rms_norm(x, {EPS}), then x.mul_(2) before backward (x of shape {shape})"
        out, _ = _two_tensors(_call(op, x, EPS, what=what), what)
        with torch.no_grad():
            x.mul_(2.0)
        result = {}
        message = c.inplace_error(lambda: result.update(grad=torch.autograd.grad(out.sum(), leaf)[0]), what)
        if message is None and _stale(result.get("grad"), leaf.detach()):
            c.fail("not-saved-for-backward",
                   f"{what}: backward ran with the changed x and gave a wrong gradient, unnoticed. Save the tensors "
                   "backward needs with ctx.save_for_backward (not as ctx attributes): autograd's version counter "
                   "then refuses a backward whose saved tensors were changed.")


def _stale(grad, original: torch.Tensor) -> bool:
    """Whether `grad` (of out.sum()) is what backward gives with x doubled and rstd kept: x read after the change."""
    if not isinstance(grad, torch.Tensor) or tuple(grad.shape) != tuple(original.shape):
        return False
    rstd = torch_rms_norm(original)[1].unsqueeze(-1)
    changed, ones = 2.0 * original, torch.ones_like(original)
    expected = rstd * (ones - changed * rstd * rstd * (ones * changed).mean(-1, keepdim=True))
    return bool(torch.allclose(grad.detach(), expected, rtol=1e-8, atol=1e-10))


def rstd_output(setup_context, backward, cases=RSTD_DEFAULT) -> None:
    """rstd, the second output, either is not differentiable (requires_grad False) or carries its true gradient:
    never a silent zero."""
    op = _registered(setup_context, backward)
    for shape, seed in cases:
        x = _input(shape, torch.float64, seed, requires_grad=True)
        what = f"rms_norm(x, {EPS})'s second output, rstd, for x of shape {shape}"
        _, rstd = _two_tensors(_call(op, x, EPS, what=what), what)
        if not rstd.requires_grad:
            continue
        weights = c.randn(*rstd.shape, seed=seed + 1000, requires_grad=False)
        grad = _grads(rstd, x, weights, f"the backward through {what}")
        leaf = x.detach().clone().requires_grad_(True)
        (expected,) = torch.autograd.grad(torch_rms_norm(leaf)[1], leaf, weights)
        got = torch.zeros_like(expected) if grad is None else grad
        if not bool(torch.allclose(got, expected, rtol=1e-8, atol=1e-10)):
            c.fail("silent-aux-gradient",
                   f"{what} requires grad, but the gradient through it is wrong (largest error "
                   f"{(got - expected).abs().max().item():.3g}): a caller who uses rstd gets a silently wrong "
                   "gradient. Either tell autograd that rstd is not differentiable, or give it its true gradient.")


def traced(setup_context, backward, cases=TRACED_DEFAULT) -> None:
    """torch.library.opcheck of the reference operator with the learner's autograd registration, on inputs that
    require grad: AOT dispatch traces backward on fake tensors."""
    op = _registered(setup_context, backward)
    for shape, dtype, seed in cases:
        x = _input(shape, dtype, seed, requires_grad=True)
        what = f"torch.library.opcheck(rms_norm, (x, {EPS})) for x of shape {shape}, {dtype}, requiring grad"
        _call(opcheck_results, op, (x, EPS), what=what, rules=OPCHECK_RULES)
