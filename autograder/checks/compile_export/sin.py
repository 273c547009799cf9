"""Checks for notebook 11's `numpy_sin` (see `compile_export`): `course::numpy_sin`, x -> sin(x).

Checked on its own for each property: values and a gradient, gradcheck, `torch.library.opcheck`,
`torch.compile(fullgraph=True, backend="aot_eager")` and `torch.export.export`. Inductor is never used: its C++
code generation costs many seconds per graph, and "aot_eager" runs the same graph capture (Dynamo +
AOTAutograd) that decides whether an op can be compiled at all. A compiled function (`compiled`) and an exported
program (`export_facts`) come back from the learner's process through probes; while they are made, the exercise's
own fake kernel stands in for the learner's (`use_exercise_fake`).
"""

from __future__ import annotations

import functools

import torch
import torch._dynamo  # noqa: F401 - imported before the integrity baseline (see compile_export/ops.py)
import torch.export  # noqa: F401

from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.explain import Rule
from autograder.checks.compile_export.ops import (
    OPCHECK_RULES, OP_ERROR, OP_RULES, CUSTOM_OP_DEF, INSTANCE_DICT, OPDEFS, op_call, require_tensor, runnable,
    surface, surfacing, tolerance, opcheck_results, require_op, use_kernel_on_copies,
)


OP = "numpy_sin"
QUALNAME = "course::numpy_sin"
SIN_HINT = "backward's result should be grad_output times the derivative of sin at the input x."

# (shape, dtype, scale, seed): an input of numpy_sin.
SIN_VALUES_DEFAULT = (((2, 3), torch.float32, 2.0, 54), ((2, 3), torch.float64, 2.0, 54))
SIN_VALUES_CASES = (((), torch.float64, 1.0, 55), ((2, 3, 4), torch.float64, 10.0, 56),
                    ((7,), torch.float32, 100.0, 57), ((), torch.float32, 1.0, 58))
SIN_GRADCHECK_DEFAULT = (((3,), 52),)                                        # (shape, seed), float64
# No 0-d input here or in opcheck: a kernel's 0-d result is sin_values' rule.
SIN_GRADCHECK_CASES = tuple((shape, 50 + seed) for seed in (0, 1) for shape in ((1,), (3,), (2, 3), (2, 3, 4)))
# Inputs without grad: opcheck then judges the schema and the fake kernel against the real one, and not the
# autograd registration (sin_gradcheck's rule).
SIN_OPCHECK_DEFAULT = (((3, 4), torch.float64, False, 60),)                   # (shape, dtype, requires_grad, seed)
SIN_OPCHECK_CASES = (((2, 5), torch.float32, False, 61), ((4,), torch.float64, False, 62))
SIN_COMPILE_DEFAULT = (((3, 4), torch.float64, 70),)                          # (shape, dtype, seed)
SIN_COMPILE_CASES = (((2, 5), torch.float32, 71),)
SIN_EXPORT_DEFAULT = (((3, 4), torch.float64, 80),)
SIN_EXPORT_CASES = (((2, 5), torch.float32, 81),)


_OWN_FAKES: dict = {}


@c.probe
def use_exercise_fake(qualname: str, on: bool) -> None:
    """In the learner's process: the operator `qualname` (found in torch.library's registry) runs on fake tensors
    with the exercise's fake kernel while `on`, then with its own again. The compile and export tests judge
    tracing and the exported graph with it, so that the fake kernel's own rule costs only opcheck's point."""
    opdef = OPDEFS.get(qualname)
    if type(opdef) is not CUSTOM_OP_DEF:
        return
    fakes = INSTANCE_DICT(opdef, "__dict__")
    if on:
        _OWN_FAKES[qualname] = fakes.get("_abstract_fn")
        def exercise_fake(x):  # made here at each use: no module holds the exercise's fake for an answer to import
            return torch.empty_like(x)

        fakes["_abstract_fn"] = exercise_fake
    elif qualname in _OWN_FAKES:
        fakes["_abstract_fn"] = _OWN_FAKES.pop(qualname)


def sin_values(op, cases=SIN_VALUES_DEFAULT) -> None:
    """Values (dtype and shape kept) and x left unchanged, for each case: computed by calling numpy_sin here and
    compared with torch.sin (the gradient is sin_gradcheck's rule)."""
    op = runnable(op, QUALNAME)
    for shape, dtype, scale, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype, scale=scale)
        original = x.clone()
        call = f"numpy_sin(x) for a {dtype} input of shape {shape}"
        y = op_call(op, x, what=call)
        require_tensor(y, call, OP, QUALNAME)
        if not bool(torch.equal(x, original)):
            c.fail("kernel-mutates-input",
                   "numpy_sin(x) changed x itself, although mutates_args=() promises it does not: the NumPy array "
                   "x.numpy() gives shares x's memory, and the kernel wrote into it.")
        rtol, atol = tolerance(dtype)
        c.require_close(y, torch.sin(original), call, "wrong-forward",
                        "the kernel should return np.sin of x's data as a tensor of x's dtype.", rtol=rtol, atol=atol)


def sin_gradcheck(op, cases=SIN_GRADCHECK_DEFAULT) -> None:
    """float64 gradcheck of numpy_sin on each (shape, seed), and x kept for backward where the version counter guards
    it. The kernel runs on a copy of x, its result in x's dtype (use_kernel_on_copies): its values, its dtype and x
    left unchanged are sin_values' rule. Where the kernel's own values are not sin's to float64's precision, finite
    differences of it cannot judge backward, and backward is compared with the reference derivative instead."""
    op = runnable(op, QUALNAME)
    trusted = _kernel_trusted(op)
    use_kernel_on_copies(QUALNAME, True)
    try:
        for shape, seed in cases:
            x = c.randn(*shape, seed=seed)
            what = f"numpy_sin on shape {shape}"
            y = op_call(op, x, what=what)  # a clear message for a missing backward or a NumPy scalar
            require_tensor(y, f"numpy_sin(x) for x of shape {shape}", OP, QUALNAME)
            g = c.randn(*shape, seed=seed + 100, requires_grad=False)
            (grad,) = op_call(c.backward_grads, y, [x], g, what=what)
            if trusted:
                op_call(functools.partial(c.gradcheck, reference=torch.sin), op, (x,), what, "wrong-derivative",
                        SIN_HINT, what=what)
            else:
                c.require_close(grad, g * torch.cos(x.detach()), f"the gradient of {what}", "wrong-derivative",
                                SIN_HINT, rtol=1e-10, atol=1e-12)
        # through .sum(), as losses are made: grad_output is one number broadcast, which backward must not write into
        op_call(require_grad_output_kept, lambda: [(op(t), [t]) for t in (c.randn(2, 3, seed=57), c.randn(4, seed=58))],
                "the gradient of numpy_sin(x).sum()", OP, what="numpy_sin's backward")
        x = c.randn(4, seed=53, requires_grad=False)
        op_call(functools.partial(kept_guarded.require_kept_guarded, op, [x], what="numpy_sin's backward", kept="x"),
                what="numpy_sin(x), then x changed in place before backward")   # the gradient's rule (no saving rule)
    finally:
        use_kernel_on_copies(QUALNAME, False)


def _kernel_trusted(op) -> bool:
    """Whether the learner's kernel gives sin of a float64 x to float64's precision, in its dtype: finite differences
    of it can then judge backward (a kernel that fails is judged where it is called)."""
    x = c.randn(5, seed=51, requires_grad=False)
    try:
        out = op(x.clone())
    except Exception:  # noqa: BLE001
        return True
    return not isinstance(out, torch.Tensor) or (out.dtype == x.dtype and out.shape == x.shape and bool(
        torch.allclose(out, torch.sin(x), rtol=1e-12, atol=1e-12)))


def sin_opcheck(op, cases=SIN_OPCHECK_DEFAULT) -> None:
    """torch.library.opcheck (schema, fake kernel, autograd registration, AOT dispatch) passes on each input. The
    kernel runs on a copy of x, its result in x's dtype (use_kernel_on_copies): a kernel that changes x or returns
    another dtype is sin_values' rule, and opcheck judges the schema, the fake kernel and the registrations."""
    op = require_op(op, OP, QUALNAME)["operator"]
    use_kernel_on_copies(QUALNAME, True)
    try:
        for shape, dtype, requires_grad, seed in cases:
            x = c.randn(*shape, seed=seed, requires_grad=requires_grad, dtype=dtype)
            what = f"torch.library.opcheck(numpy_sin, (x,)) for x of shape {tuple(x.shape)}, {x.dtype}"
            try:
                op_call(opcheck_results, op, (x,), what=what, rules=OPCHECK_RULES)
            except c.Mistake as mistake:
                if mistake.code == "fake-kernel-mismatch":   # the fake may be right and the real kernel the cause
                    _require_kernel_keeps_x(op, x, what)
                raise
    finally:
        use_kernel_on_copies(QUALNAME, False)


def _require_kernel_keeps_x(op, x, what) -> None:
    """The real kernel's output has x's shape and dtype, as sin's does (and what a fake kernel of empty_like
    describes): where it does not, the fake and the real kernel disagree by the real kernel's fault."""
    real = op_call(op, x.detach().clone(), what="numpy_sin(x)")
    if not isinstance(real, torch.Tensor) or (real.dtype == x.dtype and tuple(real.shape) == tuple(x.shape)):
        return
    c.fail("kernel-output-dtype",
           f"{what}: the real kernel returns shape {tuple(real.shape)}, {real.dtype} for an input of shape "
           f"{tuple(x.shape)}, {x.dtype}, but sin keeps its input's shape and dtype, which is what a fake kernel "
           "describes: the disagreement is the real kernel's. "
           + ("Convert the kernel's result back to x's dtype (NumPy computes a float64 array in float64; "
              "torch.tensor of a Python list gives float32)." if real.dtype != x.dtype else
              "Return an array of x's shape (np.asarray of NumPy's result keeps a 0-d array 0-d)."))


@c.compiling_probe
def compiled(op):
    """In the learner's process: fn(t) = op(t) * 2 + 1 under torch.compile(fullgraph=True, backend="aot_eager").
    The compiled function stays there (it crosses as a handle): calling it compiles it at the first call, on the
    caller's tensors, and its backward is the compiled one."""
    torch.compiler.reset()

    def fn(t):
        return op(t) * 2.0 + 1.0

    return functools.partial(surfacing, torch.compile(fn, backend="aot_eager", fullgraph=True))


def sin_compile(op, cases=SIN_COMPILE_DEFAULT) -> None:
    """torch.compile(fullgraph=True, backend="aot_eager") of a function using the op: values and gradients match
    eager, for each input (one compile each: a compile costs a fraction of a second, the first in a process
    seconds)."""
    op = require_op(op, OP, QUALNAME)["operator"]
    use_exercise_fake(QUALNAME, True)
    use_kernel_on_copies(QUALNAME, True)   # the kernel's values, dtype and x left alone: sin_values' rule
    try:
        _sin_compile(op, cases)
    finally:
        use_kernel_on_copies(QUALNAME, False)
        use_exercise_fake(QUALNAME, False)


# What tracing says of a setup_context or backward that reads a tensor's data (fake tensors have none), in words.
_READS_DATA = ("{what}: the registered backward (or setup_context) reads a tensor's data (NumPy, .item()), but "
               "torch.compile traces them on fake tensors, which have none: write them with torch operations (only the "
               "kernel runs on real data).")
COMPILE_RULES = (
    Rule("leaves-torch", r"\.numpy\(\) is not supported for tensor subclasses|_local_scalar_dense", _READS_DATA),
    Rule("leaves-torch", message=_READS_DATA, error="no-storage"),
) + OP_RULES + (OP_ERROR,)


def _sin_compile(op, cases) -> None:
    """The compiled function against the same function run eagerly, both on the learner's operator (with the
    exercise's fake kernel, see use_exercise_fake): the kernel's values are sin_values' rule, the gradient's
    sin_gradcheck's (which alone judges an operator without a registered backward)."""
    what = 'torch.compile(fn, fullgraph=True, backend="aot_eager") with fn(t) = numpy_sin(t) * 2 + 1'
    for shape, dtype, seed in cases:
        fn = compiled(op)
        x = c.randn(*shape, seed=seed, dtype=dtype)
        eager_x = x.detach().clone().requires_grad_(True)
        eager = op_call(op, eager_x, what=f"numpy_sin(x) for x of shape {tuple(shape)}")
        try:
            (eager_grad,) = op_call(c.backward_grads, eager * 2.0 + 1.0, [eager_x], what="numpy_sin's backward")
        except c.Mistake as mistake:
            if mistake.code != "no-autograd":
                raise
            eager_grad = None
        y = op_call(fn, x if eager_grad is not None else x.detach(), what=what, rules=COMPILE_RULES)
        rtol, atol = tolerance(x.dtype)
        c.require_close(y, eager.detach() * 2.0 + 1.0, f"the compiled function's output ({x.dtype})",
                        "wrong-compiled-forward", "it differs from the same function run eagerly.",
                        rtol=rtol, atol=atol)
        if eager_grad is None:
            continue
        (grad,) = op_call(c.backward_grads, y, [x], what=what + ", backward", rules=COMPILE_RULES)
        c.require_close(grad, eager_grad, f"the gradient through the compiled function ({x.dtype})",
                        "wrong-compiled-backward", "it differs from the gradient of the same function run eagerly: "
                        "backward and setup_context run on fake tensors when traced, where only torch operations "
                        "work.", rtol=rtol, atol=atol)


class _UsesOp(torch.nn.Module):
    def __init__(self, op, *extra):
        super().__init__()
        self.op = op
        self.extra = extra

    def forward(self, x):
        out = self.op(x, *self.extra)
        return out * 2.0 if isinstance(out, torch.Tensor) else out


@c.compiling_probe
def export_facts(op, x, extra: tuple = ()) -> dict:
    """In the learner's process: torch.export.export of a module returning op(x) * 2 (op(x, *extra) as it is when
    op has several outputs). The exported graph's call_function nodes (target, and the shape and dtype recorded
    for each of their outputs), and the exported program's module (it crosses as a handle, to be called like
    the learner's objects)."""
    try:
        program = torch.export.export(_UsesOp(op, *extra), (x,))
    except Exception as error:  # noqa: BLE001 - re-raised
        surface(error)
    nodes = []
    for node in program.graph.nodes:
        if node.op == "call_function":
            recorded = node.meta.get("val")
            recorded = recorded if isinstance(recorded, (tuple, list)) else (recorded,)
            outputs = [(tuple(int(n) for n in r.shape), r.dtype) if isinstance(r, torch.Tensor) else None
                       for r in recorded]
            nodes.append({"target": str(node.target), "outputs": outputs})
    return {"nodes": nodes, "module": program.module()}


def sin_export(op, cases=SIN_EXPORT_DEFAULT) -> None:
    """torch.export.export of a module using the op: the graph keeps course::numpy_sin as one node, the shape and
    dtype recorded for it are the real ones, and the exported program computes the right values."""
    op = require_op(op, OP, QUALNAME)["operator"]
    use_exercise_fake(QUALNAME, True)
    use_kernel_on_copies(QUALNAME, True)   # the kernel's values, dtype and x left alone: sin_values' rule
    try:
        _sin_export(op, cases)
    finally:
        use_kernel_on_copies(QUALNAME, False)
        use_exercise_fake(QUALNAME, False)


def _sin_export(op, cases) -> None:
    """With the exercise's fake kernel (use_exercise_fake: the learner's is opcheck's rule), the exported program
    against the learner's own operator run eagerly (its values are sin_values' rule)."""
    what = "torch.export.export of a module returning numpy_sin(x) * 2"
    for shape, dtype, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype)
        program = op_call(export_facts, op, x, what=what)
        nodes = [n for n in program["nodes"] if "numpy_sin" in n["target"]]
        if not nodes:
            c.fail("op-not-in-graph", f"{what}: the exported graph has no course::numpy_sin node, so the exporter "
                                      "never saw your operator: define numpy_sin with torch.library.custom_op.")
        real = op_call(op, x.clone(), what="numpy_sin(x)")  # a clone: changing x is sin_values' rule
        recorded = nodes[0]["outputs"][0]
        if recorded is not None and (tuple(recorded[0]) != tuple(real.shape) or recorded[1] != real.dtype):
            _require_kernel_keeps_x(op, x, what)
            c.fail("fake-kernel-mismatch",
                   f"{what}: the exported graph records numpy_sin's output as shape {tuple(recorded[0])}, "
                   f"{recorded[1]} (from the fake kernel), but the real kernel returns shape "
                   f"{tuple(real.shape)}, {real.dtype}: the two kernels disagree.")
        out = op_call(program["module"], x.clone(), what="the exported program")
        rtol, atol = tolerance(x.dtype)
        c.require_close(out, 2 * real, "the exported program's output", "wrong-exported-forward",
                        "it differs from numpy_sin(x) * 2 run eagerly.", rtol=rtol, atol=atol)
