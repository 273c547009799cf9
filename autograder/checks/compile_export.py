"""Checks for notebook 11 (torch.compile, torch.export and custom operators).

`numpy_sin` is the custom operator `course::numpy_sin` made with `torch.library.custom_op`: a NumPy kernel,
a fake kernel (`register_fake`) and an autograd formula (`register_autograd`). Each property is checked on
its own: values, gradcheck, `torch.library.opcheck`, `torch.compile(fullgraph=True, backend="aot_eager")`
and `torch.export.export`.

Inductor is never used: its C++ code generation costs many seconds per graph, and "aot_eager" runs the same
graph capture (Dynamo + AOTAutograd) that decides whether an op can be compiled at all.

When grading, the learner's names are proxies here (autograder/sandbox/proxy.py): calls, gradients and gradcheck
go through them, but torch.compile, torch.export and opcheck need the real objects. Those run in the learner's
process, in probes (`op_facts`, `opcheck_results`, `compiled`, `export_facts`) that return only what they
computed: results by test name, the facts of an exported graph, or a handle to a compiled function to call like
the learner's objects. Every comparison and verdict is made here.
"""

from __future__ import annotations

import functools

import torch
import torch._dynamo  # noqa: F401 - see below
import torch.export  # noqa: F401

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
    is_op = isinstance(op, torch.library.CustomOpDef)
    return {"type": type(op).__name__, "is_custom_op": is_op,
            "is_function": isinstance(op, type) and issubclass(op, torch.autograd.Function),
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
    return (1e-6, 1e-7) if dtype == torch.float32 else (1e-12, 1e-12)


def sin_values(op, hidden: bool = False) -> None:
    """Values in float32 and float64 (dtype and shape kept) and the gradient of a small example. Visible: a (2, 3)
    example; hidden: a 0-d input, larger shapes and magnitudes."""
    require_op(op)
    if hidden:
        samples = [c.randn(seed=55, requires_grad=False), c.randn(2, 3, 4, seed=56, requires_grad=False, scale=10.0),
                   c.randn(7, seed=57, requires_grad=False, dtype=torch.float32, scale=100.0)]
    else:
        samples = [torch.tensor([[-2.0, -0.5, 0.0], [0.25, 1.0, 3.0]], dtype=dtype)
                   for dtype in (torch.float32, torch.float64)]
    for x in samples:
        dtype = x.dtype
        original = x.clone()
        y = _op_call(op, x, what=f"numpy_sin(x) for a {dtype} input")
        if not bool(torch.allclose(x, original)):
            c.fail("kernel-mutates-input",
                   "numpy_sin(x) changed x itself, although mutates_args=() promises it does not: x.numpy() shares "
                   "x's memory, so do not write into it (no out= into that array); return a new array.")
        rtol, atol = _sin_tolerance(dtype)
        c.require_close(y, torch.sin(original), f"numpy_sin(x) for a {dtype} input", "wrong-forward",
                        "the kernel should return np.sin of x's data as a tensor of x's dtype.", rtol=rtol, atol=atol)
    if hidden:
        return
    x = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    y = _op_call(op, x, what="numpy_sin(x)")
    (grad,) = _op_call(c.backward_grads, y, [x], torch.full_like(y, 2.0), what="numpy_sin's backward")
    c.require_close(grad, 2 * torch.cos(x.detach()), "the gradient of numpy_sin(x) with grad_output = 2",
                    "wrong-derivative", SIN_HINT)


def sin_gradcheck(op, hidden: bool = False) -> None:
    """float64 gradcheck. Visible: one shape; hidden: every shape (a 0-d tensor included) and two seeds."""
    require_op(op)
    cases = [(seed, shape) for seed in (0, 1) for shape in SIN_SHAPES] if hidden else [(2, (3,))]
    for seed, shape in cases:
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
        return dict(torch.library.opcheck(op, (x,)))
    except Exception as error:  # noqa: BLE001 - re-raised
        _surface(error)


def sin_opcheck(op, hidden: bool = False) -> None:
    """torch.library.opcheck (schema, fake kernel, autograd registration, AOT dispatch) passes. Visible: a float64
    input that requires grad; hidden: a float32 one that does not."""
    require_op(op)
    samples = [c.randn(2, 5, seed=61, requires_grad=False, dtype=torch.float32)] if hidden else [c.randn(3, 4, seed=60)]
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
    torch.compiler.reset()

    def fn(t):
        return op(t) * 2.0 + 1.0

    return functools.partial(_surfacing, torch.compile(fn, backend="aot_eager", fullgraph=True))


def sin_compile(op, hidden: bool = False) -> None:
    """torch.compile(fullgraph=True, backend="aot_eager") of a function using the op: values and gradients match
    eager. Visible: a float64 input; hidden: a float32 input of another shape (one compile each: a compile costs
    a fraction of a second, the first one in a process seconds)."""
    require_op(op)
    fn = compiled(op)
    what = 'torch.compile(fn, fullgraph=True, backend="aot_eager") with fn(t) = numpy_sin(t) * 2 + 1'
    for x in ((c.randn(2, 5, seed=71, dtype=torch.float32),) if hidden else (c.randn(3, 4, seed=70),)):
        y = _op_call(fn, x, what=what)
        rtol, atol = _sin_tolerance(x.dtype)
        c.require_close(y, 2 * torch.sin(x.detach()) + 1, f"the compiled function's output ({x.dtype})",
                        "wrong-compiled-forward", rtol=rtol, atol=atol)
        (grad,) = _op_call(c.backward_grads, y, [x], what=what + ", backward")
        c.require_close(grad, 2 * torch.cos(x.detach()), f"the gradient through the compiled function ({x.dtype})",
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
        program = torch.export.export(_UsesOp(op), (x,))
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


def sin_export(op, hidden: bool = False) -> None:
    """torch.export.export of a module using the op: the graph keeps course::numpy_sin as one node, the shape and
    dtype recorded for it are the real ones, and the exported program computes the right values. Visible: a
    float64 input; hidden: a float32 input of another shape."""
    require_op(op)
    x = c.randn(2, 5, seed=81, requires_grad=False, dtype=torch.float32) if hidden else c.randn(3, 4, seed=80,
                                                                                           requires_grad=False)
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
    rtol, atol = _sin_tolerance(x.dtype)
    c.require_close(out, 2 * torch.sin(x), "the exported program's output", "wrong-exported-forward",
                    rtol=rtol, atol=atol)
