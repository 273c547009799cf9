"""Checks for notebook 16 (a compiled kernel as a custom operator).

The course's C++ kernel (autograder/kernels/rms_norm.cpp, built outside every learner's process) gives two ops,
`torch.ops.course_kernels.rms_norm(x, eps) -> (out, rstd)` and `rms_norm_backward(grad_out, x, rstd) -> grad_x`,
with no fake kernel and no autograd formula. The learner writes:

- `rms_norm`, the custom operator `course::rms_norm` that calls the forward kernel, and its fake kernel. What an
  operator is comes from notebook 11's fixed check (`compile_export.ops.require_op`: the C-level type and the
  dispatcher, never the object's attributes), and the tests call the dispatcher's operator of that name. Checked
  for values, and for the fake kernel where it matters: the operator called under FakeTensorMode on fake inputs (a
  transposed one among them), its outputs' shapes, dtypes and strides compared here with the kernel's contract. A
  fake kernel that runs the compiled kernel fails there, as it fails under torch.compile and torch.export.
- `grad_rms_norm`: `rms_norm_setup_context` and `rms_norm_backward`, given to `register_autograd`. Checked on a
  stand-in operator of the checks' own (`course_check::rms_norm`, the same kernel and a fake kernel, made inside
  the probe of the one test that needs it, never at import) with the learner's two functions registered on it, so a
  mistake in `rms_norm` costs nothing here: the gradient (the only test that reads backward's arity: the others
  take the None for eps as given), the saved tensors (an in-place change of x after the forward is caught), rstd
  (not differentiable, or its true gradient), and opcheck, which traces the backward on fake tensors.

When grading, the learner's names are proxies here (autograder/engine/sandbox/proxy.py); values, gradients and the
fake kernel's outputs are computed by calling through them and compared here. Only `fake_outputs` (the metadata
of the operator's outputs on fake tensors), `with_autograd` (the learner's functions registered on a stand-in
operator it makes there, under a name the dispatcher did not know, handed back as the dispatcher's operator) and
`opcheck_results` run there, and what they read was bound when this module was imported.
Errors become plain feedback through the Rule tables `RULES` and `OPCHECK_RULES`.
"""

from __future__ import annotations

import torch

from autograder import kernels
from autograder.checks import common as c
from autograder.checks.compile_export.ops import (
    FAKE_READS_DATA, CUSTOM_OP_DEF, dispatcher_op, as_metadata, contiguous_strides, fake_outputs, opcheck_results,
    require_op as _require_custom_op,
)
from autograder.checks.explain import Rule, explained, literal

QUALNAME = "course::rms_norm"
EPS = 1e-6
# The rule, not the answer: what a fake kernel is for. A message says which output and which property differ (from
# the inputs of the case), never what to write.
FAKE_HINT = ("a fake kernel describes what the compiled kernel returns for inputs of that shape, dtype and layout, "
             "without computing it: each output's shape, dtype and strides, as the kernel's contract gives them.")
GRAD_HINT = ("backward returns one value per input of the operator, (x, eps): the gradient of x, and None for eps, "
             "a float.")
# True of both kinds of backward: one that calls the compiled backward kernel and one written with torch operations.
DERIVATIVE_HINT = ("backward returns grad_out times the derivative of RMS normalisation with respect to x, which "
                   "depends on x, the operator's input, and on rstd, its second output (both saved in setup_context, "
                   "as they were in forward): whether it calls the compiled backward kernel, which takes (grad_out, "
                   "x, rstd) in that order, or computes the derivative with torch operations.")
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
FAKE_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("not-implemented", error="names-not-implemented", message="{what}: part of the answer is not implemented yet."),
    Rule("fake-kernel-runs-kernel", r"course_kernels",
         "{what}: the fake kernel calls the compiled kernel, which cannot run on fake tensors (shape, dtype and "
         "strides, no data), as torch.compile, torch.export and opcheck pass them ({line}). " + literal(FAKE_HINT)),
    Rule("no-fake-kernel", error=("no-fake-impl", "no-meta-kernel"), message=
         "{what}: rms_norm has no fake kernel: torch.compile, torch.export and opcheck run the operator on fake "
         "tensors, where the C++ kernel cannot run. Register one with @rms_norm.register_fake."),
    FAKE_READS_DATA,
    ERROR,
)
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


def require_op(op, name: str = "rms_norm") -> dict:
    """Notebook 11's check (`compile_export.ops.require_op`): `op` is the CustomOpDef, by its C-level type, that
    torch.library registered as course::rms_norm, which the dispatcher knows. facts["operator"] is the
    dispatcher's operator of that name, made from the C registry: what the tests call, never the object."""
    return _require_custom_op(op, name, QUALNAME)


# ------------------------------------------------------------------------------------------- rms_norm

# (shape, dtype, transposed, seed)
VALUES_DEFAULT = (((3, 5), torch.float64, False, 160), ((4, 3), torch.float32, True, 161))
VALUES_CASES = (((2, 3, 6), torch.float64, False, 162), ((7,), torch.float32, False, 163),
                ((5, 2), torch.float64, True, 164))
FAKE_DEFAULT = (((3, 5), torch.float64, False, 165), ((4, 3), torch.float64, True, 166))
FAKE_CASES = (((2, 3, 6), torch.float32, False, 167), ((6,), torch.float64, False, 168),
              ((2, 5), torch.float32, True, 169))


# The eps of the call where it weighs: x of mean square about 0.25 (the cases' eps, 1e-6, is also the one the
# notebook's demonstrations pass to the kernel: an operator that passes that number instead of its own eps is wrong
# only for another eps).
OTHER_EPS = (((2, 4), torch.float64, False, 158), 0.5)


def values(op, cases=VALUES_DEFAULT) -> None:
    """rms_norm(x, eps) returns the kernel's (out, rstd) for that eps, x unchanged: computed by calling the operator
    here and compared with RMS normalisation in torch operations (the cases with eps = 1e-6, then one case with
    eps = 0.5)."""
    op = require_op(op)["operator"]
    for (shape, dtype, transposed, seed), eps in [(case, EPS) for case in cases] + [OTHER_EPS]:
        x = _input(shape, dtype, seed, transposed) * (1.0 if eps == EPS else 0.5)
        original = x.clone()
        what = f"rms_norm(x, {eps}) for {_describe(shape, dtype, transposed)}"
        out, rstd = _two_tensors(_call(op, x, eps, what=what), what)
        if not bool(torch.equal(x, original)):
            c.fail("kernel-mutates-input", f"{what} changed x, although mutates_args=() promises it does not.")
        expected_out, expected_rstd = torch_rms_norm(original, eps)
        tol = (1e-5, 1e-6) if dtype == torch.float32 else (1e-10, 1e-12)
        hint = ("the operator returns what torch.ops.course_kernels.rms_norm(x, eps) returns, for the eps it is "
                "called with.")
        c.require_close(out, expected_out, f"the first output (out) of {what}", "wrong-forward", hint, *tol)
        c.require_close(rstd, expected_rstd, f"the second output (rstd) of {what}", "wrong-forward", hint, *tol)


def fake_kernel(op, cases=FAKE_DEFAULT) -> None:
    """The registered fake kernel where it is used: the operator called under FakeTensorMode on fake inputs (a
    transposed x among them), each output's shape, dtype and strides compared here with the kernel's contract
    (out of x's shape, rstd of x.shape[:-1], both in x's dtype and contiguous whatever x's layout). A fake kernel
    that computes its outputs with the compiled kernel fails here. The operator's body is never run, so a mistake
    in it costs nothing here."""
    require_op(op)
    for shape, dtype, transposed, seed in cases:
        x = _input(shape, dtype, seed, transposed)
        what = f"rms_norm on fake tensors (FakeTensorMode), for {_describe(shape, dtype, transposed)}"
        got = _call(fake_outputs, QUALNAME, tuple(x.shape), tuple(x.stride()), dtype, (EPS,), what=what, rules=FAKE_RULES)
        got = list(got) if isinstance(got, (list, tuple)) else []
        if len(got) != 2 or any(as_metadata(item) is None for item in got):
            c.fail("wrong-outputs", f"{what} returned {len(got)} value(s), not two tensors: the fake kernel describes "
                                    "both outputs, (out, rstd). " + FAKE_HINT)
        for name, item, expected_shape in (("out", got[0], tuple(x.shape)), ("rstd", got[1], tuple(x.shape[:-1]))):
            f_shape, f_stride, f_dtype = as_metadata(item)
            if (f_shape, f_dtype) != (expected_shape, str(dtype)):
                c.fail("fake-kernel-mismatch", f"{what} describes {name} as shape {f_shape}, {f_dtype}, but the "
                                               f"kernel returns shape {expected_shape}, {dtype}. " + FAKE_HINT)
            expected_stride = contiguous_strides(expected_shape)
            if f_stride != expected_stride:
                c.fail("fake-kernel-strides",
                       f"{what} describes {name} with strides {f_stride}, but the kernel returns strides "
                       f"{expected_stride}: the kernel's contract says its outputs are contiguous whatever x's "
                       "layout. " + FAKE_HINT)


# -------------------------------------------------------------------------------------- grad_rms_norm

# `course_check::rms_norm`, the stand-in operator the learner's autograd formula is registered on (the course's
# kernel, and a fake kernel of its own): made inside `with_autograd`, in the learner's process of the one test that
# needs it, never at import, so no fake kernel that answers the exercise exists where the fake test runs (each test
# is a fresh fork of the process the answers ran in). A name the dispatcher already knows is refused (an answer that
# defined or steered it); what the tests call is the dispatcher's operator of that name, made from the C registry.
STAND_IN = "course_check::rms_norm"
_KERNEL = "course_kernels::rms_norm"
_SCHEMA = "(Tensor x, float eps) -> (Tensor, Tensor)"
_DISPATCH_DUMP = torch._C._dispatch_dump
_CUSTOM_OP = torch.library.custom_op
_REGISTER_FAKE = CUSTOM_OP_DEF.register_fake
_REGISTER_AUTOGRAD = CUSTOM_OP_DEF.register_autograd
_LIST = list
# The stand-ins this process's probe made (several when the checks run in one process, the notebook's own tests):
# each call makes one under a name of its own. Whatever an answer puts here only picks another name, refused in turn
# if the dispatcher knows it.
_MADE: list = []


def _fresh_name() -> str:
    made = _MADE
    if type(made) is not _LIST:
        raise RuntimeError("the checks' record of their stand-in operators was replaced by the answer")
    return STAND_IN if not made else f"{STAND_IN}_{len(made)}"


def _stand_in_op(qualname: str):
    """A custom operator of the checks' own under `qualname`, which the dispatcher did not know: the course's
    forward kernel, and a fake kernel made here (the kernel's contract), put where no other test reaches it."""
    if _DISPATCH_DUMP(qualname):
        raise RuntimeError(f"{qualname} was defined or registered by the answer: the grader's operator of that name "
                           "is not the answer's to make")

    def forward(x, eps):
        kernel = dispatcher_op(_KERNEL)
        if kernel is None:
            raise RuntimeError("course_kernels is not loaded: run the notebook's first cell")
        return kernel(x, eps)

    op = _CUSTOM_OP(qualname, forward, mutates_args=(), schema=_SCHEMA)
    _REGISTER_FAKE(op, lambda x, eps: (x.new_empty(x.shape), x.new_empty(x.shape[:-1])))
    _MADE.append(qualname)
    return op


def _one_per_input(backward):
    """The learner's backward with its result read as (the gradient of x, None for eps): the None for eps is the
    gradient test's rule, and every other test takes it as given."""
    def backward_one_per_input(ctx, *grads):
        result = backward(ctx, *grads)
        grad_x = result[0] if isinstance(result, (tuple, list)) and len(result) > 0 else result
        return grad_x, None

    return backward_one_per_input


@c.probe
def with_autograd(setup_context, backward, one_per_input: bool = False):
    """In the learner's process: a stand-in operator made here (`_stand_in_op`), the learner's setup_context and
    backward registered on it (through CustomOpDef's own method, bound at import), and the dispatcher's operator of
    that name returned (it crosses as a handle)."""
    kernels.load(allow_build=False)
    qualname = _fresh_name()
    op = _stand_in_op(qualname)
    _REGISTER_AUTOGRAD(op, _one_per_input(backward) if one_per_input else backward, setup_context=setup_context)
    return dispatcher_op(qualname)


def _registered(setup_context, backward, one_per_input: bool = True):
    for name, fn in (("rms_norm_setup_context", setup_context), ("rms_norm_backward", backward)):
        if fn is None:
            c.fail("not-defined", f"`{name}` is not defined: run (or write) its answer cell.")
    return _call(with_autograd, setup_context, backward, one_per_input,
                 what="register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)")


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
    op = _registered(setup_context, backward, one_per_input=False)
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
        c.require_float64_kept(grad, expected, f"the gradient of x through out ({dtype})", "backward")
        c.require_close(grad, expected, f"the gradient of x through out ({dtype})", "wrong-derivative",
                        DERIVATIVE_HINT, *tol)
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
        if not out.requires_grad:
            return   # no gradient through out at all: the gradient test's to name
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
    """torch.library.opcheck of the stand-in operator with the learner's autograd registration, on inputs that
    require grad: AOT dispatch traces backward on fake tensors."""
    op = _registered(setup_context, backward)
    for shape, dtype, seed in cases:
        x = _input(shape, dtype, seed, requires_grad=True)
        what = f"torch.library.opcheck(rms_norm, (x, {EPS})) for x of shape {shape}, {dtype}, requiring grad"
        _call(opcheck_results, op, (x, EPS), what=what, rules=OPCHECK_RULES)
