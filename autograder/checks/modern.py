"""Checks for notebook 10 (torch.func, torch.compile and torch.export).

- `Cube.apply(x)` returns x ** 3. Written in the torch.func style: `forward(x)` without ctx, a separate
  `setup_context(ctx, inputs, output)`, `generate_vmap_rule = True`, and a backward made of differentiable
  torch operations, so it works under `torch.func.vmap`, `grad` and `jacrev`, and twice.
- `numpy_sin` is the custom operator `course::numpy_sin` made with `torch.library.custom_op`: a NumPy kernel,
  a fake kernel (`register_fake`) and an autograd formula (`register_autograd`). Each property is checked on
  its own: values, gradcheck, `torch.library.opcheck`, `torch.compile(fullgraph=True, backend="aot_eager")`
  and `torch.export.export`.

Inductor is never used: its C++ code generation costs many seconds per graph, and "aot_eager" runs the same
graph capture (Dynamo + AOTAutograd) that decides whether an op can be compiled at all.

When grading, the learner's names are proxies here (autograder/sandbox/proxy.py): calls, gradients, gradcheck and
gradgradcheck go through them, but torch.func, torch.compile, torch.export and opcheck need the real objects. Those
run in the learner's process, in probes (`transformed`, `op_facts`, `opcheck_results`, `compiled`,
`export_facts`) that return only what they computed: tensors, the facts of an exported graph, or a handle to a
compiled function to call like the learner's objects. Every comparison and verdict is made here.
"""

from __future__ import annotations

import functools

import torch
import torch._dynamo  # noqa: F401 - see below
import torch.export  # noqa: F401
import torch.func

from autograder.checks import common as c

# Importing torch._dynamo replaces torch.manual_seed by a wrapped version, and the first torch.compile in a
# process patches torch.nn.Module.__init__ and __setstate__ (Dynamo tags modules created during tracing). The
# grader imports every checks module before it records which objects are trusted, so doing both here (not
# lazily, in the middle of a test) keeps PyTorch's own patches from looking like tampering.
try:
    from torch._dynamo.mutation_guard import install_generation_tagging_init as _install_tagging

    _install_tagging()
except ImportError:  # a private helper: if a later PyTorch moves it, the first compile installs the patch
    pass

_vmap = torch.func.vmap
_func_grad = torch.func.grad
_jacrev = torch.func.jacrev
_compile = torch.compile
_compiler_reset = torch.compiler.reset
_export = torch.export.export
_opcheck = torch.library.opcheck
_CustomOpDef = torch.library.CustomOpDef
_sin = torch.sin
_cos = torch.cos
_stack = torch.stack
_float32 = torch.float32
_float64 = torch.float64

CUBE = "Cube"
CUBE_SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
CUBE_HINT = "d(x**3)/dx = 3 * x**2, times grad_output."
TWICE_HINT = ("Build backward from differentiable torch operations on the saved tensors (grad_output * 3 * x ** 2): "
              "no .detach(), no NumPy, no torch.no_grad(), no @once_differentiable, so autograd can "
              "differentiate your backward again.")

SETUP_CONTEXT_MSG = "must override the setup_context staticmethod"
VMAP_RULE_MSG = "does not have vmap support"
NO_STORAGE_MSG = "Cannot access data pointer of Tensor that doesn't have storage"


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
               f"{what}: vmap does not know how to batch your Function. Add the class attribute "
               "generate_vmap_rule = True (vmap then runs your forward on batched tensors itself).")
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
               "(ctx, grad_output).")


def _run(fn, *args, what: str):
    """Call learner code (directly or through a torch.func transform) with plain feedback on failure."""
    try:
        return c.call(fn, *args, what=what)
    except c.Mistake:
        raise
    except (RuntimeError, TypeError) as error:
        _explain_func(error, what)
        raise


@c.probe
def transformed(Fn, how: str, x, args: tuple = (), weight=None, in_dims: int = 0, summed: bool = True):
    """In the learner's process (torch.func transforms the real Function, never a proxy of it): the transform
    `how` of f(t) = Fn.apply(t, *args), evaluated at x. Only the tensor it computes comes back.

    how: "vmap" (with in_dims), "grad" (of f(t).sum(), or of (f(t) * weight).sum(); with summed=False, of f(t)
    itself), "vmap(grad)" (per-sample gradients), "grad(grad)" (the second derivative of f(t).sum(), summed),
    "jacrev".
    """

    def f(t):
        return Fn.apply(t, *args)

    def scalar(t):
        if not summed:
            return f(t)
        return f(t).sum() if weight is None else (f(t) * weight).sum()

    if how == "vmap":
        return _vmap(f, in_dims=in_dims)(x)
    if how == "grad":
        return _func_grad(scalar)(x)
    if how == "vmap(grad)":
        return _vmap(_func_grad(scalar))(x)
    if how == "grad(grad)":
        return _func_grad(lambda t: _func_grad(scalar)(t).sum())(x)
    if how == "jacrev":
        return _jacrev(f)(x)
    raise ValueError(f"unknown transform {how!r}")


def under_func(Fn, how: str, x, what: str, **options):
    """`transformed(Fn, how, x, **options)` with plain feedback on failure (see `_run`)."""
    return _run(functools.partial(transformed, Fn, how, **options), x, what=what)


def _cube_gradcheck(fn, inputs, what, hint, second=False):
    try:
        if second:
            c.gradgradcheck(fn, inputs, what, hint=hint)
        else:
            c.gradcheck(fn, inputs, what, hint=hint)
    except c.Mistake:
        raise
    except (RuntimeError, TypeError) as error:
        _explain_func(error, what)
        raise


# ---------------------------------------------------------------------------------------------- Cube

def cube_values(Cube) -> None:
    """Visible: values and the gradient of a small example, through ordinary autograd."""
    c.require_function(Cube, CUBE)
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=_float64, requires_grad=True)
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


def cube_gradgradcheck(Cube, seeds=(0, 1)) -> None:
    """Hidden: second derivatives (gradgradcheck), and torch.func.grad of torch.func.grad gives 6x."""
    c.require_function(Cube, CUBE)
    for seed in seeds:
        for shape in CUBE_SHAPES[1:]:
            x = c.randn(*shape, seed=10 + seed)
            _cube_gradcheck(Cube.apply, (x,), f"Cube on shape {shape}", TWICE_HINT, second=True)
    x = c.randn(5, seed=12, requires_grad=False)
    curvature = under_func(Cube, "grad(grad)", x, what="torch.func.grad(torch.func.grad(...)) through Cube")
    c.require_close(curvature, 6 * x, "the second derivative of Cube through torch.func", "not-twice-differentiable",
                    "d2(x**3)/dx2 = 6x. " + TWICE_HINT)


def cube_vmap(Cube) -> None:
    """Hidden: torch.func.vmap(Cube.apply) equals x ** 3 sample by sample (several in_dims and shapes)."""
    c.require_function(Cube, CUBE)
    xb = c.randn(5, 3, seed=20, requires_grad=False)
    out = under_func(Cube, "vmap", xb, what="torch.func.vmap(Cube.apply)")
    expected = _stack([xi ** 3 for xi in xb])
    c.require_close(out, expected, "torch.func.vmap(Cube.apply)(x) for x of shape (5, 3)", "wrong-vmap",
                    "each sample must be cubed.")
    xs = c.randn(6, seed=21, requires_grad=False)
    out = under_func(Cube, "vmap", xs, what="torch.func.vmap(Cube.apply) over scalars")
    c.require_close(out, xs ** 3, "torch.func.vmap(Cube.apply)(x) for x of shape (6,)", "wrong-vmap")
    xt = c.randn(3, 4, 2, seed=22, requires_grad=False)
    out = under_func(Cube, "vmap", xt, in_dims=1, what="torch.func.vmap(Cube.apply, in_dims=1)")
    c.require_close(out, (xt ** 3).movedim(1, 0), "torch.func.vmap(Cube.apply, in_dims=1)(x)", "wrong-vmap")


def cube_func_grad(Cube) -> None:
    """Hidden: torch.func.grad of a scalar function using Cube matches 3x^2 (times the weights)."""
    c.require_function(Cube, CUBE)
    for seed, shape in ((30, (4,)), (31, (2, 3))):
        x = c.randn(*shape, seed=seed, requires_grad=False)
        w = c.randn(*shape, seed=seed + 100, requires_grad=False)
        g = under_func(Cube, "grad", x, weight=w, what="torch.func.grad(lambda t: (Cube.apply(t) * w).sum())")
        c.require_close(g, 3 * x ** 2 * w, f"torch.func.grad of (Cube.apply(x) * w).sum() for shape {shape}",
                        "wrong-derivative", CUBE_HINT)
    # per-sample gradients: vmap of grad
    xb = c.randn(4, 3, seed=32, requires_grad=False)
    g = under_func(Cube, "vmap(grad)", xb, what="vmap(grad(...)) through Cube")
    c.require_close(g, 3 * xb ** 2, "per-sample gradients vmap(grad(lambda t: Cube.apply(t).sum()))(x)",
                    "wrong-derivative", CUBE_HINT)


def cube_jacrev(Cube) -> None:
    """Hidden: torch.func.jacrev(Cube.apply) is the diagonal matrix diag(3x^2)."""
    c.require_function(Cube, CUBE)
    x = c.randn(4, seed=40, requires_grad=False)
    jac = under_func(Cube, "jacrev", x, what="torch.func.jacrev(Cube.apply)")
    c.require_close(jac, torch.diag(3 * x ** 2), "torch.func.jacrev(Cube.apply)(x) for x of shape (4,)",
                    "wrong-jacobian", "the Jacobian of an elementwise cube is diag(3 * x**2).")
    x2 = c.randn(2, 3, seed=41, requires_grad=False)
    jac = under_func(Cube, "jacrev", x2, what="torch.func.jacrev(Cube.apply)")
    expected = torch.diag((3 * x2 ** 2).reshape(-1)).reshape(2, 3, 2, 3)
    c.require_close(jac, expected, "torch.func.jacrev(Cube.apply)(x) for x of shape (2, 3)", "wrong-jacobian",
                    "the Jacobian of an elementwise cube is diag(3 * x**2).")


# ------------------------------------------------------------------------------------------ numpy_sin

OP = "numpy_sin"
QUALNAME = "course::numpy_sin"
SIN_SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
SIN_HINT = "d sin(x)/dx = cos(x): backward returns grad_output * torch.cos(x), with x saved in setup_context."
FAKE_HINT = ("register a fake kernel that returns an empty tensor with the real output's shape, dtype and device "
             "and never touches the data: @numpy_sin.register_fake, def _(x): return torch.empty_like(x).")
AUTOGRAD_HINT = ("register the backward: numpy_sin.register_autograd(backward, setup_context=setup_context), with "
                 "setup_context saving x and backward returning grad_output * torch.cos(x).")


@c.probe
def op_facts(op) -> dict:
    """What kind of object `op` is (probe: type checks happen where op lives)."""
    is_op = isinstance(op, _CustomOpDef)
    return {"type": type(op).__name__, "is_custom_op": is_op,
            "is_function": isinstance(op, type) and issubclass(op, c._Function),
            "qualname": str(getattr(op, "_qualname", QUALNAME)) if is_op else None}


def require_op(op) -> None:
    """`op` must be the custom operator course::numpy_sin made with torch.library.custom_op."""
    if op is None:
        c.fail("not-defined", f"`{OP}` is not defined: run (or write) its answer cell.")
    facts = op_facts(op)
    if facts["is_function"]:
        c.fail("not-a-custom-op",
               f"`{OP}` is an autograd.Function, but this exercise asks for a custom operator: decorate the "
               f"NumPy kernel with @torch.library.custom_op(\"{QUALNAME}\", mutates_args=()).")
    if not facts["is_custom_op"]:
        c.fail("not-a-custom-op",
               f"`{OP}` should be the object that @torch.library.custom_op(\"{QUALNAME}\", mutates_args=()) "
               f"returns, got {facts['type']}.")
    name = facts["qualname"]
    if name != QUALNAME:
        c.fail("wrong-op-name", f"the custom operator is named {name!r}; name it {QUALNAME!r}.")


def _causes(error: BaseException):
    seen = []
    while error is not None and error not in seen and len(seen) < 10:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def _explain_op(error: Exception, what: str) -> None:
    """Plain words for what goes wrong with a custom operator's registrations."""
    text = str(error)
    if any(isinstance(e, NotImplementedError) for e in _causes(error)) or "NotImplementedError" in text:
        c.fail("not-implemented", f"{what}: part of the answer is not implemented yet (it raises "
                                  "NotImplementedError).")
    if "no fake impl registered" in text or "There was no fake impl" in text:
        c.fail("no-fake-kernel",
               f"{what}: the operator has no fake kernel. torch.compile, torch.export and opcheck run it on fake "
               "tensors (shape and dtype, no data), where NumPy cannot run: " + FAKE_HINT)
    if "no autograd formula was registered" in text:
        c.fail("no-autograd",
               f"{what}: autograd has no backward for the operator (\"no autograd formula was registered\"): "
               + AUTOGRAD_HINT)
    if "expected np.ndarray" in text:
        c.fail("numpy-scalar",
               f"{what}: torch.from_numpy received a NumPy scalar ({text.strip()}). NumPy functions return a "
               "scalar, not an array, for a 0-d input: wrap the result with np.asarray(...) before "
               "torch.from_numpy (or use torch.as_tensor).")
    if "mismatched tensor metadata" in text or "Attempting to broadcast" in text:
        c.fail("fake-kernel-mismatch",
               f"{what}: the fake kernel describes a different output than the real kernel produces "
               f"({_first_line(text)}). The fake kernel must return exactly the real output's shape and dtype: "
               "torch.empty_like(x).")
    if "test_schema failed" in text or "not defined as mutable" in text or "may not alias" in text:
        c.fail("kernel-mutates-or-aliases",
               f"{what}: the kernel changes its input or returns (a view of) it, which the schema "
               f"(mutates_args=()) forbids ({_first_line(text)}). Return a new tensor and leave x untouched: no "
               "out= into x's own NumPy buffer.")


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line[:300]


def _surface(error: Exception):
    """Re-raise `error`, in the learner's process, so that what crosses to the judge (an error's type and
    message, not the chain of errors it wraps) still says what `_explain_op` reads: an error wrapping the
    learner's NotImplementedError (opcheck's OpCheckError does) is raised as a NotImplementedError with the same
    message."""
    if not isinstance(error, NotImplementedError) and any(isinstance(e, NotImplementedError)
                                                          for e in _causes(error)):
        raise NotImplementedError(str(error)) from error
    raise error


def _surfacing(fn, *args):
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 - re-raised
        _surface(error)


def _op_call(fn, *args, what: str):
    try:
        return fn(*args)
    except c.Mistake:
        raise
    except Exception as error:  # noqa: BLE001 - every failure of learner code becomes plain feedback
        _explain_op(error, what)
        kind = getattr(error, "learner_type", "") or type(error).__name__  # its type there, when it crossed
        c.fail("op-error", f"{what} raised {kind}: {_first_line(str(error))}")


def _sin_tolerance(dtype):
    return (1e-6, 1e-7) if dtype == _float32 else (1e-12, 1e-12)


def sin_values(op) -> None:
    """Visible: values in float32 and float64 (dtype and shape kept) and the gradient of a small example."""
    require_op(op)
    for dtype in (_float32, _float64):
        x = torch.tensor([[-2.0, -0.5, 0.0], [0.25, 1.0, 3.0]], dtype=dtype)
        original = x.clone()
        y = _op_call(op, x, what=f"numpy_sin(x) for a {dtype} input")
        if not bool(c._allclose(x, original)):
            c.fail("kernel-mutates-input",
                   "numpy_sin(x) changed x itself, although mutates_args=() promises it does not: x.numpy() shares "
                   "x's memory, so do not write into it (no out= into that array); return a new array.")
        rtol, atol = _sin_tolerance(dtype)
        c.require_close(y, _sin(original), f"numpy_sin(x) for a {dtype} input", "wrong-forward",
                        "the kernel should return np.sin of x's data as a tensor of x's dtype.", rtol=rtol, atol=atol)
    x = torch.tensor([-1.0, 0.5, 2.0], dtype=_float64, requires_grad=True)
    y = _op_call(op, x, what="numpy_sin(x)")
    (grad,) = _op_call(c.backward_grads, y, [x], torch.full_like(y, 2.0), what="numpy_sin's backward")
    c.require_close(grad, 2 * _cos(x.detach()), "the gradient of numpy_sin(x) with grad_output = 2",
                    "wrong-derivative", SIN_HINT)


def sin_gradcheck(op, seeds=(0, 1)) -> None:
    """Hidden: float64 gradcheck over shapes (a 0-d tensor included) and seeds."""
    require_op(op)
    for seed in seeds:
        for shape in SIN_SHAPES:
            x = c.randn(*shape, seed=50 + seed)
            what = f"numpy_sin on shape {shape}"
            y = _op_call(op, x, what=what)  # a clear message for a missing backward or a NumPy scalar
            _op_call(c.backward_grads, y, [x], what=what)
            try:
                c.gradcheck(op, (x,), what, hint=SIN_HINT)
            except c.Mistake:
                raise
            except Exception as error:  # noqa: BLE001
                _explain_op(error, what)
                raise


@c.probe
def opcheck_results(op, x) -> dict:
    """In the learner's process: torch.library.opcheck(op, (x,)), its results by test name."""
    try:
        return dict(_opcheck(op, (x,)))
    except Exception as error:  # noqa: BLE001 - re-raised
        _surface(error)


def sin_opcheck(op) -> None:
    """Hidden: torch.library.opcheck (schema, fake kernel, autograd registration, AOT dispatch) passes."""
    require_op(op)
    samples = [c.randn(3, 4, seed=60), c.randn(2, 5, seed=61, requires_grad=False, dtype=_float32)]
    for x in samples:
        what = f"torch.library.opcheck(numpy_sin, (x,)) for x of shape {tuple(x.shape)}, {x.dtype}"
        try:
            opcheck_results(op, x)
        except Exception as error:  # noqa: BLE001 - opcheck raises its own OpCheckError
            _explain_op(error, what)
            text = str(error)
            if "test_autograd_registration" in text:
                c.fail("autograd-registration", f"{what}: the autograd registration is wrong "
                                                f"({_first_line(text)}). " + AUTOGRAD_HINT)
            c.fail("opcheck-failed", f"{what} failed: {_first_line(text)}")


@c.probe
def compiled(op):
    """In the learner's process: fn(t) = op(t) * 2 + 1 under torch.compile(fullgraph=True, backend="aot_eager").
    The compiled function stays there (it crosses as a handle): calling it compiles it at the first call, on the
    caller's tensors, and its backward is the compiled one."""
    _compiler_reset()

    def fn(t):
        return op(t) * 2.0 + 1.0

    return functools.partial(_surfacing, _compile(fn, backend="aot_eager", fullgraph=True))


def sin_compile(op) -> None:
    """Hidden: torch.compile(fullgraph=True, backend="aot_eager") of a function using the op: values and
    gradients match eager."""
    require_op(op)
    fn = compiled(op)
    what = 'torch.compile(fn, fullgraph=True, backend="aot_eager") with fn(t) = numpy_sin(t) * 2 + 1'
    for x in (c.randn(3, 4, seed=70),):   # one compile: the first one in a process costs seconds
        y = _op_call(fn, x, what=what)
        rtol, atol = _sin_tolerance(x.dtype)
        c.require_close(y, 2 * _sin(x.detach()) + 1, f"the compiled function's output ({x.dtype})",
                        "wrong-compiled-forward", rtol=rtol, atol=atol)
        (grad,) = _op_call(c.backward_grads, y, [x], what=what + ", backward")
        c.require_close(grad, 2 * _cos(x.detach()), f"the gradient through the compiled function ({x.dtype})",
                        "wrong-compiled-backward", SIN_HINT, rtol=rtol, atol=atol)


class _UsesOp(torch.nn.Module):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def forward(self, x):
        return self.op(x) * 2.0


@c.probe
def export_facts(op, x) -> dict:
    """In the learner's process: torch.export.export of a module returning op(x) * 2. The exported graph's
    call_function nodes (target, and the shape and dtype recorded for their output), and the exported program's
    module (it crosses as a handle, to be called like the learner's objects)."""
    try:
        program = _export(_UsesOp(op), (x,))
    except Exception as error:  # noqa: BLE001 - re-raised
        _surface(error)
    nodes = []
    for node in program.graph.nodes:
        if node.op == "call_function":
            recorded = node.meta.get("val")
            known = isinstance(recorded, torch.Tensor)
            nodes.append({"target": str(node.target),
                          "shape": tuple(int(n) for n in recorded.shape) if known else None,
                          "dtype": recorded.dtype if known else None})
    return {"nodes": nodes, "module": program.module()}


def sin_export(op) -> None:
    """Hidden: torch.export.export of a module using the op: the graph keeps course::numpy_sin as one node,
    the shape and dtype recorded for it are the real ones, and the exported program computes the right values."""
    require_op(op)
    x = c.randn(3, 4, seed=80, requires_grad=False)
    what = "torch.export.export of a module returning numpy_sin(x) * 2"
    program = _op_call(export_facts, op, x, what=what)
    nodes = [n for n in program["nodes"] if "numpy_sin" in n["target"]]
    if not nodes:
        c.fail("op-not-in-graph", f"{what}: the exported graph has no course::numpy_sin node, so the exporter "
                                  "never saw your operator: define numpy_sin with torch.library.custom_op.")
    real = _op_call(op, x, what="numpy_sin(x)")
    recorded = nodes[0]
    if recorded["shape"] is not None:
        if tuple(recorded["shape"]) != tuple(real.shape) or recorded["dtype"] != real.dtype:
            c.fail("fake-kernel-mismatch",
                   f"{what}: the exported graph records numpy_sin's output as shape {tuple(recorded['shape'])}, "
                   f"{recorded['dtype']} (from your fake kernel), but the real kernel returns shape "
                   f"{tuple(real.shape)}, {real.dtype}. The fake kernel must return torch.empty_like(x).")
    out = _op_call(program["module"], x, what="the exported program")
    c.require_close(out, 2 * _sin(x), "the exported program's output", "wrong-exported-forward",
                    rtol=1e-12, atol=1e-12)
