"""Checks for notebook 11 (torch.compile, torch.export and custom operators).

Two custom operators made with `torch.library.custom_op`, each with a NumPy kernel, a fake kernel
(`register_fake`) and an autograd formula (`register_autograd`):

- `numpy_sin` is `course::numpy_sin`, x -> sin(x). Checked on its own for each property: values and a gradient,
  gradcheck, `torch.library.opcheck`, `torch.compile(fullgraph=True, backend="aot_eager")` and
  `torch.export.export`.
- `numpy_topk` is `course::numpy_topk`, (x, k) -> (values, indices) of the k largest entries along the last
  dim, largest first, the indices int64 and not differentiable. Checked for values, the gradient through the
  values, the fake kernel (called here on real inputs: it must describe both outputs) and opcheck.

Inductor is never used: its C++ code generation costs many seconds per graph, and "aot_eager" runs the same
graph capture (Dynamo + AOTAutograd) that decides whether an op can be compiled at all.

When grading, the learner's names are proxies here (autograder/engine/sandbox/proxy.py). Values, gradients, gradcheck
and the fake kernel's outputs are computed by calling the operator (or its registered fake kernel, an attribute
of the operator) through them, with inputs chosen here, and compared here: those tests read no probe. Only what
the learner's process alone can observe comes back through probes: what kind of object the operator is
(`op_facts`), opcheck's verdict (`opcheck_results`), a compiled function (`compiled`) and an exported program
(`export_facts`), each returning only what it computed. Every comparison and verdict is made here.

Each check's `cases=` default is what its visible test runs; the hidden tests pass the larger tables below.
Errors become plain feedback through the Rule tables `OP_RULES`, `OPCHECK_RULES` and `TOPK_RULES`
(autograder/checks/explain.py).
"""

from __future__ import annotations

import functools

import torch
import torch._dynamo  # noqa: F401 - see below
import torch.export  # noqa: F401
from torch._library import custom_ops as _custom_ops

from autograder.checks import common as c
from autograder.checks.explain import Rule, causes, explained, literal

# Importing torch._dynamo replaces torch.manual_seed by a wrapped version, and the first torch.compile in a
# process patches torch.nn.Module.__init__ and __setstate__ (Dynamo tags modules created during tracing). The
# grader imports every checks module before it records which objects are trusted, so doing both here (not
# lazily, in the middle of a test) keeps PyTorch's own patches from looking like tampering.
try:
    from torch._dynamo.mutation_guard import install_generation_tagging_init as _install_tagging

    _install_tagging()
except ImportError:  # a private helper: if a later PyTorch moves it, the first compile installs the patch
    pass


# ------------------------------------------------------------------------------- what goes wrong, in words

# What is wrong, not how to write it: the lesson shows the registrations, the learner finds the missing one.
FAKE_HINT = ("nothing tells PyTorch what the operator returns without running it (the shape, dtype and device of "
             "its output, with no data).")
AUTOGRAD_HINT = ("a backward and a setup_context written beside the operator are not the operator's until they are "
                 "registered with it, so autograd never calls them.")

# An operator's registrations, as the errors of calling, tracing or checking it name them.
OP_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("not-implemented", "NotImplementedError",
         "{what}: part of the answer is not implemented yet (it raises NotImplementedError)."),
    Rule("no-fake-kernel", "no fake impl registered|There was no fake impl",
         "{what}: the operator has no fake kernel. torch.compile, torch.export and opcheck run it on fake "
         "tensors (shape and dtype, no data), where NumPy cannot run: " + literal(FAKE_HINT)),
    Rule("no-autograd", "no autograd formula was registered",
         "{what}: autograd has no backward for the operator (\"no autograd formula was registered\"): "
         + literal(AUTOGRAD_HINT)),
    Rule("numpy-scalar", "expected np.ndarray",
         "{what}: torch.from_numpy received a NumPy scalar ({line}). For a 0-d input NumPy functions return a "
         "scalar, not an array, and torch.from_numpy takes only arrays."),
    Rule("strided-output", r"Stride mismatch",
         "{what}: the real kernel returns a tensor whose strides are not those of a fresh tensor of its shape "
         "({line}): a slice of a NumPy array (arr[..., :k]) is a view into the whole array, and torch.from_numpy "
         "keeps its strides. The fake kernel describes a fresh, contiguous tensor: return "
         "np.ascontiguousarray(...) (or .copy()) of the slice."),
    Rule("fake-kernel-mismatch", "mismatched tensor metadata|Attempting to broadcast",
         "{what}: the fake kernel describes a different output than the real kernel produces ({line}). The "
         "fake kernel must return exactly the real output's shape and dtype."),
    Rule("kernel-mutates-or-aliases", "test_schema failed|not defined as mutable|may not alias",
         "{what}: the kernel changes its input or returns (a view of) it, which the schema (mutates_args=()) "
         "forbids ({line}). Return a new tensor and leave x untouched: no out= into x's own NumPy buffer, no "
         "in-place sort of x's data."),
)
OP_ERROR = Rule("op-error", None, "{what} raised {kind}: {line}")
OPCHECK_RULES = OP_RULES + (
    Rule("autograd-registration", "test_autograd_registration",
         "{what}: the autograd registration is wrong ({line}). " + literal(AUTOGRAD_HINT)),
    Rule("opcheck-failed", None, "{what} failed: {line}"),
)


def _op_call(fn, *args, what: str, rules: tuple | None = None):
    """Call learner code; an error becomes the Mistake of the first rule of `rules` (by default the operator's
    rules, then any error as op-error) that recognises it."""
    with explained(what, OP_RULES + (OP_ERROR,) if rules is None else rules):
        return fn(*args)


def _tolerance(dtype):
    return (1e-6, 1e-7) if dtype == torch.float32 else (1e-12, 1e-12)


def _require_tensor(result, call: str, op: str, qualname: str) -> None:
    """The operator returned a tensor (an autograd.Function class, called, returns an instance of itself)."""
    if not isinstance(result, torch.Tensor):
        c.fail("not-a-custom-op",
               f"{call} returned a {type(result).__name__}, not a tensor: `{op}` should be the custom operator that "
               f"@torch.library.custom_op(\"{qualname}\", mutates_args=()) returns, called like a function.")


# What an operator is comes from the registries, by name, and from the C-level type of the learner's object, never
# from the object's own attributes: an object may say it is a CustomOpDef (a `__class__` property) and carry any
# `_qualname`, `_opoverload` or `_abstract_fn`, and a real CustomOpDef's `_opoverload` can be pointed at another
# operator. So the operator the tests run (opcheck, compile, export, and the values of a real custom operator) is
# the one the dispatcher knows by its name, built here from the C registry; the object only has to be the
# CustomOpDef that torch.library registered under that name. Everything is bound when this module is imported,
# before any answer ran.
_CUSTOM_OP_DEF = torch.library.CustomOpDef
_OPDEFS = _custom_ops.OPDEFS                      # qualname -> the CustomOpDef torch.library.custom_op registered
_OP_OVERLOAD, _OP_PACKET = torch._ops.OpOverload, torch._ops.OpOverloadPacket
_JIT_OPERATION, _OPERATION_OVERLOAD = torch._C._jit_get_operation, torch._C._get_operation_overload
_SCHEMA_OF = torch._C._get_schema
_TYPE, _ISSUBCLASS, _FUNCTION = type, issubclass, torch.autograd.Function
_INSTANCE_DICT = object.__getattribute__


def _dispatcher_op(qualname: str):
    """The default overload of the operator the dispatcher knows as `qualname`, as a fresh OpOverload made from
    the C registry (not torch.ops' cache, which is an attribute anyone can set), or None when there is none."""
    try:
        packet_op, overload_names = _JIT_OPERATION(qualname)
        found = _OPERATION_OVERLOAD(qualname, "")
        schema = _SCHEMA_OF(qualname, "")
    except RuntimeError:
        return None
    if packet_op is None or found is None:
        return None
    op_, op_dk, tags = found
    packet = _OP_PACKET(qualname, qualname.partition("::")[2], packet_op, overload_names)
    return _OP_OVERLOAD(packet, op_, op_dk, schema, tags)


@c.probe
def op_facts(op, qualname: str) -> dict:
    """What kind of object `op` is, read where it lives: "type" its C-level type's name; "is_custom_op" whether
    that type is CustomOpDef itself; "is_function" whether it is an autograd.Function class; "names" the names
    under which torch.library registered this very object; "operator" the dispatcher's operator of that name
    (`qualname` when it is one of them), None when there is none; "fake" the fake kernel that operator's
    registration runs (None when none was registered)."""
    kind = _TYPE(op)
    facts = {"type": kind.__name__, "is_custom_op": kind is _CUSTOM_OP_DEF,
             "is_function": _ISSUBCLASS(kind, type) and _ISSUBCLASS(op, _FUNCTION),
             "names": [], "operator": None, "fake": None}
    if not facts["is_custom_op"]:
        return facts
    facts["names"] = sorted(name for name, registered in list(_OPDEFS.items()) if registered is op)
    named = qualname if qualname in facts["names"] else next(iter(facts["names"]), None)
    if named is not None:
        facts["operator"] = _dispatcher_op(named)
        facts["fake"] = _INSTANCE_DICT(op, "__dict__").get("_abstract_fn")
    return facts


def require_op(op, name: str, qualname: str) -> dict:
    """`op` must be the custom operator `qualname` made with torch.library.custom_op: a CustomOpDef (by its
    C-level type) that torch.library registered under that name, which the dispatcher knows. Returns its facts
    (`op_facts`): the tests then run facts["operator"], the operator found by name."""
    if op is None:
        c.fail("not-defined", f"`{name}` is not defined: run (or write) its answer cell.")
    facts = op_facts(op, qualname)
    if facts["is_function"]:
        c.fail("not-a-custom-op",
               f"`{name}` is an autograd.Function, but this exercise asks for a custom operator: decorate the "
               f"NumPy kernel with @torch.library.custom_op(\"{qualname}\", mutates_args=()).")
    if not facts["is_custom_op"]:
        c.fail("not-a-custom-op",
               f"`{name}` should be the object that @torch.library.custom_op(\"{qualname}\", mutates_args=()) "
               f"returns, got {facts['type']}.")
    if qualname not in facts["names"]:
        if facts["names"]:
            c.fail("wrong-op-name", f"the custom operator is named {facts['names'][0]!r}; name it {qualname!r}.")
        c.fail("not-a-custom-op",
               f"`{name}` is a CustomOpDef that torch.library does not know under any name (another definition "
               f"replaced it, or it was not made by @torch.library.custom_op): run its answer cell again.")
    if facts["operator"] is None:
        c.fail("not-a-custom-op", f"PyTorch's dispatcher has no operator {qualname!r}: define it with "
                                  f"@torch.library.custom_op(\"{qualname}\", mutates_args=()).")
    return facts


def _runnable(op, qualname: str):
    """What the values and gradient tests call: for a CustomOpDef (by its C-level type) registered as
    a name, the dispatcher's operator of that name (never the object's own `_opoverload`); for any other
    callable, the object itself (its values are still its values); a CustomOpDef registered under no name
    fails here."""
    if op is None:
        return op
    facts = op_facts(op, qualname)
    if not facts["is_custom_op"]:
        return op
    if facts["operator"] is None:
        c.fail("not-a-custom-op",
               "the object is a CustomOpDef that torch.library does not know under any name (another definition "
               "replaced it, or it was not made by @torch.library.custom_op): run its answer cell again.")
    return facts["operator"]


def _surface(error: Exception):
    """Re-raise `error`, in the learner's process, so that what crosses to the judge (an error's type and
    message, not the chain of errors it wraps) still says what the rules read: an error wrapping the learner's
    NotImplementedError (opcheck's OpCheckError does) is raised as a NotImplementedError with the same
    message."""
    if not isinstance(error, NotImplementedError) and any(isinstance(e, NotImplementedError) for e in causes(error)):
        raise NotImplementedError(str(error)) from error
    raise error


def _surfacing(fn, *args):
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 - re-raised
        _surface(error)


@c.probe
def opcheck_results(op, args: tuple) -> dict:
    """In the learner's process: torch.library.opcheck(op, args), its results by test name."""
    try:
        return dict(torch.library.opcheck(op, args))
    except Exception as error:  # noqa: BLE001 - re-raised
        _surface(error)


# ------------------------------------------------------------------------------------------ numpy_sin

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


def _reference_sin_fake(x):
    return torch.empty_like(x)


_OWN_FAKES: dict = {}


@c.probe
def use_reference_fake(qualname: str, on: bool) -> None:
    """In the learner's process: the operator `qualname` (found in torch.library's registry) runs on fake tensors
    with the exercise's fake kernel while `on`, then with its own again. The compile and export tests judge
    tracing and the exported graph with it, so that the fake kernel's own rule costs only opcheck's point."""
    opdef = _OPDEFS.get(qualname)
    if type(opdef) is not _CUSTOM_OP_DEF:
        return
    fakes = _INSTANCE_DICT(opdef, "__dict__")
    if on:
        _OWN_FAKES[qualname] = fakes.get("_abstract_fn")
        fakes["_abstract_fn"] = _reference_sin_fake
    elif qualname in _OWN_FAKES:
        fakes["_abstract_fn"] = _OWN_FAKES.pop(qualname)


def sin_values(op, cases=SIN_VALUES_DEFAULT) -> None:
    """Values (dtype and shape kept) and x left unchanged, for each case: computed by calling numpy_sin here and
    compared with torch.sin (the gradient is sin_gradcheck's rule)."""
    op = _runnable(op, QUALNAME)
    for shape, dtype, scale, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype, scale=scale)
        original = x.clone()
        call = f"numpy_sin(x) for a {dtype} input of shape {shape}"
        y = _op_call(op, x, what=call)
        _require_tensor(y, call, OP, QUALNAME)
        if not bool(torch.equal(x, original)):
            c.fail("kernel-mutates-input",
                   "numpy_sin(x) changed x itself, although mutates_args=() promises it does not: the NumPy array "
                   "x.numpy() gives shares x's memory, and the kernel wrote into it.")
        rtol, atol = _tolerance(dtype)
        c.require_close(y, torch.sin(original), call, "wrong-forward",
                        "the kernel should return np.sin of x's data as a tensor of x's dtype.", rtol=rtol, atol=atol)


def sin_gradcheck(op, cases=SIN_GRADCHECK_DEFAULT) -> None:
    """float64 gradcheck of numpy_sin on each (shape, seed)."""
    op = _runnable(op, QUALNAME)
    for shape, seed in cases:
        x = c.randn(*shape, seed=seed)
        what = f"numpy_sin on shape {shape}"
        original = x.detach().clone()
        y = _op_call(op, x, what=what)  # a clear message for a missing backward or a NumPy scalar
        _require_tensor(y, f"numpy_sin(x) for x of shape {shape}", OP, QUALNAME)
        if not bool(torch.equal(x.detach(), original)):  # then backward reads a changed x: name the cause
            c.fail("kernel-mutates-input", f"{what}: numpy_sin(x) changed x itself, so backward saw another x "
                                           "than the one sin was taken of (mutates_args=() promises no change).")
        _op_call(c.backward_grads, y, [x], what=what)
        _op_call(c.gradcheck, op, (x,), what, "wrong-derivative", SIN_HINT, what=what)


def sin_opcheck(op, cases=SIN_OPCHECK_DEFAULT) -> None:
    """torch.library.opcheck (schema, fake kernel, autograd registration, AOT dispatch) passes on each input."""
    op = require_op(op, OP, QUALNAME)["operator"]
    for shape, dtype, requires_grad, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=requires_grad, dtype=dtype)
        what = f"torch.library.opcheck(numpy_sin, (x,)) for x of shape {tuple(x.shape)}, {x.dtype}"
        _op_call(opcheck_results, op, (x,), what=what, rules=OPCHECK_RULES)


@c.probe
def compiled(op):
    """In the learner's process: fn(t) = op(t) * 2 + 1 under torch.compile(fullgraph=True, backend="aot_eager").
    The compiled function stays there (it crosses as a handle): calling it compiles it at the first call, on the
    caller's tensors, and its backward is the compiled one."""
    torch.compiler.reset()

    def fn(t):
        return op(t) * 2.0 + 1.0

    return functools.partial(_surfacing, torch.compile(fn, backend="aot_eager", fullgraph=True))


def sin_compile(op, cases=SIN_COMPILE_DEFAULT) -> None:
    """torch.compile(fullgraph=True, backend="aot_eager") of a function using the op: values and gradients match
    eager, for each input (one compile each: a compile costs a fraction of a second, the first in a process
    seconds)."""
    op = require_op(op, OP, QUALNAME)["operator"]
    use_reference_fake(QUALNAME, True)
    try:
        _sin_compile(op, cases)
    finally:
        use_reference_fake(QUALNAME, False)


def _sin_compile(op, cases) -> None:
    """The compiled function against the same function run eagerly, both on the learner's operator (with the
    exercise's fake kernel, see use_reference_fake): the kernel's values are sin_values' rule, the gradient's
    sin_gradcheck's (which alone judges an operator without a registered backward)."""
    what = 'torch.compile(fn, fullgraph=True, backend="aot_eager") with fn(t) = numpy_sin(t) * 2 + 1'
    for shape, dtype, seed in cases:
        fn = compiled(op)
        x = c.randn(*shape, seed=seed, dtype=dtype)
        eager_x = x.detach().clone().requires_grad_(True)
        eager = _op_call(op, eager_x, what=f"numpy_sin(x) for x of shape {tuple(shape)}")
        try:
            (eager_grad,) = _op_call(c.backward_grads, eager * 2.0 + 1.0, [eager_x], what="numpy_sin's backward")
        except c.Mistake as mistake:
            if mistake.code != "no-autograd":
                raise
            eager_grad = None
        y = _op_call(fn, x if eager_grad is not None else x.detach(), what=what)
        rtol, atol = _tolerance(x.dtype)
        c.require_close(y, eager.detach() * 2.0 + 1.0, f"the compiled function's output ({x.dtype})",
                        "wrong-compiled-forward", "it differs from the same function run eagerly.",
                        rtol=rtol, atol=atol)
        if eager_grad is None:
            continue
        (grad,) = _op_call(c.backward_grads, y, [x], what=what + ", backward")
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


@c.probe
def export_facts(op, x, extra: tuple = ()) -> dict:
    """In the learner's process: torch.export.export of a module returning op(x) * 2 (op(x, *extra) as it is when
    op has several outputs). The exported graph's call_function nodes (target, and the shape and dtype recorded
    for each of their outputs), and the exported program's module (it crosses as a handle, to be called like
    the learner's objects)."""
    try:
        program = torch.export.export(_UsesOp(op, *extra), (x,))
    except Exception as error:  # noqa: BLE001 - re-raised
        _surface(error)
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
    use_reference_fake(QUALNAME, True)
    try:
        _sin_export(op, cases)
    finally:
        use_reference_fake(QUALNAME, False)


def _sin_export(op, cases) -> None:
    """With the exercise's fake kernel (use_reference_fake: the learner's is opcheck's rule), the exported program
    against the learner's own operator run eagerly (its values are sin_values' rule)."""
    what = "torch.export.export of a module returning numpy_sin(x) * 2"
    for shape, dtype, seed in cases:
        x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype)
        program = _op_call(export_facts, op, x, what=what)
        nodes = [n for n in program["nodes"] if "numpy_sin" in n["target"]]
        if not nodes:
            c.fail("op-not-in-graph", f"{what}: the exported graph has no course::numpy_sin node, so the exporter "
                                      "never saw your operator: define numpy_sin with torch.library.custom_op.")
        real = _op_call(op, x.clone(), what="numpy_sin(x)")  # a clone: changing x is sin_values' rule
        recorded = nodes[0]["outputs"][0]
        if recorded is not None and (tuple(recorded[0]) != tuple(real.shape) or recorded[1] != real.dtype):
            c.fail("fake-kernel-mismatch",
                   f"{what}: the exported graph records numpy_sin's output as shape {tuple(recorded[0])}, "
                   f"{recorded[1]} (from your fake kernel), but the real kernel returns shape "
                   f"{tuple(real.shape)}, {real.dtype}: the two kernels disagree.")
        out = _op_call(program["module"], x.clone(), what="the exported program")
        rtol, atol = _tolerance(x.dtype)
        c.require_close(out, 2 * real, "the exported program's output", "wrong-exported-forward",
                        "it differs from numpy_sin(x) * 2 run eagerly.", rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------- numpy_topk

TOPK = "numpy_topk"
TOPK_QUALNAME = "course::numpy_topk"
TOPK_HINT = ("only the k values that were picked get a gradient, each at the place in x its index names: "
             "start from zeros of x's shape and scatter grad_values there along the last dim, with the saved indices.")
ONE_PER_INPUT = ("backward gets one grad_output per output (grad_values, grad_indices), but returns one gradient "
                 "per input of the operator, x and k: return (grad_x, None). The indices are not differentiable "
                 "and get nothing; k is an int.")

# (shape, k, dtype, seed): an input of numpy_topk (random values: no ties).
TOPK_VALUES_DEFAULT = (((3, 5), 2, torch.float64, 90),)
TOPK_VALUES_CASES = (((6,), 3, torch.float32, 91), ((2, 3, 7), 4, torch.float64, 92), ((4, 5), 5, torch.float64, 93),
                     ((3, 4), 1, torch.float32, 94))
TOPK_GRADIENT_DEFAULT = (((3, 5), 2, torch.float64, 95),)
TOPK_GRADIENT_CASES = (((6,), 3, torch.float64, 96), ((2, 3, 6), 4, torch.float64, 97), ((4, 4), 4, torch.float64, 98))
TOPK_FAKE_DEFAULT = (((3, 5), 2, torch.float64, 100),)
TOPK_FAKE_CASES = (((6,), 4, torch.float32, 101), ((2, 3, 5), 1, torch.float64, 102))
TOPK_OPCHECK_DEFAULT = (((3, 5), 2, torch.float64, True, 105),)           # (shape, k, dtype, requires_grad, seed)
TOPK_OPCHECK_CASES = (((2, 3, 6), 4, torch.float32, False, 106),)

# What autograd says about numpy_topk's backward, in the words of this exercise (PyTorch's own count of the
# operator's inputs includes one it adds itself, so its numbers are not quoted).
TOPK_RULES = (
    Rule("gradient-for-k", mistake="missing-none", message="{what}: backward returned a gradient for k. "
         + literal(ONE_PER_INPUT)),
    Rule("gradient-for-k", r"returned a gradient different than None at position",
         "{what}: backward returned a gradient for k. " + literal(ONE_PER_INPUT), types=(RuntimeError,)),
    Rule("wrong-arity", mistake="wrong-arity", message="{what}: backward returned the wrong number of values. "
         + literal(ONE_PER_INPUT)),
    Rule("wrong-arity", r"returned an incorrect number of gradients",
         "{what}: backward returned the wrong number of values. " + literal(ONE_PER_INPUT), types=(RuntimeError,)),
    Rule("gradient-not-scattered", r"index -?\d+ is out of bounds for dimension",
         "{what}: backward put grad_values at places x does not have ({line}): " + literal(TOPK_HINT),
         types=(RuntimeError, IndexError)),
)


def _topk_input(shape, dtype, seed, requires_grad=False):
    return c.randn(*shape, seed=seed, requires_grad=requires_grad, dtype=dtype)


def _topk_outputs(op, x, k, what):
    """(values, indices), or a plain-words failure when the operator returns something else."""
    out = _op_call(op, x, k, what=what, rules=TOPK_RULES + OP_RULES + (OP_ERROR,))
    if isinstance(out, torch.Tensor) or not isinstance(out, (tuple, list)):
        _require_tensor(out, what, TOPK, TOPK_QUALNAME)
        c.fail("wrong-outputs", f"{what} returned one tensor; it returns two, (values, indices): declare the "
                                "return type tuple[torch.Tensor, torch.Tensor] and return both.")
    if len(out) != 2 or not all(isinstance(t, torch.Tensor) for t in out):
        c.fail("wrong-outputs", f"{what} returned {len(out)} outputs; it returns two tensors, (values, indices).")
    return out


def topk_values(op, cases=TOPK_VALUES_DEFAULT) -> None:
    """The k largest values along the last dim, largest first, in x's dtype; int64 indices pointing at them; x left
    unchanged. Computed by calling numpy_topk here and compared with torch.topk."""
    op = _runnable(op, TOPK_QUALNAME)
    for shape, k, dtype, seed in cases:
        x = _topk_input(shape, dtype, seed)
        original = x.clone()
        what = f"numpy_topk(x, {k}) for a {dtype} x of shape {shape}"
        values, indices = _topk_outputs(op, x, k, what)
        if not bool(torch.equal(x, original)):
            c.fail("kernel-mutates-input",
                   f"{what} changed x itself, although mutates_args=() promises it does not: x.numpy() shares x's "
                   "memory, so an in-place sort (arr.sort()) or out= sorts x too. Use np.argsort, which returns new "
                   "arrays.")
        expected = torch.topk(original, k, dim=-1)
        smallest = torch.topk(original, k, dim=-1, largest=False).values
        if tuple(values.shape) == tuple(smallest.shape) and values.dtype == dtype and bool(torch.equal(values, smallest)):
            c.fail("smallest-k", f"{what} returned the k smallest values: top-k picks the k largest, largest first "
                                 "(argsort of -x, or argsort of x reversed).")
        c.require_close(values, expected.values, f"the values of {what}", "wrong-forward",
                        "they should be the k largest entries along the last dim, largest first, in x's dtype.")
        if indices.dtype != torch.int64:
            c.fail("wrong-index-dtype",
                   f"the indices of {what} have dtype {indices.dtype}; indices are int64 (torch.long): that is what "
                   "torch.topk, gather and scatter use. Do not convert np.argsort's result to another type.")
        if tuple(indices.shape) != tuple(expected.indices.shape) or not bool(torch.equal(indices, expected.indices)):
            c.fail("wrong-indices", f"the indices of {what} do not name the places in x of the values returned: "
                                    "indices[..., j] is where values[..., j] sits along the last dim of x.")


def topk_gradient(op, cases=TOPK_GRADIENT_DEFAULT) -> None:
    """The gradient through the values (weighted by a random grad_values) lands at the picked places of x, and
    a float64 gradcheck of the values passes. Computed here, through the operator."""
    op = _runnable(op, TOPK_QUALNAME)
    for shape, k, dtype, seed in cases:
        x = _topk_input(shape, dtype, seed, requires_grad=True)
        what = f"numpy_topk(x, {k}) for x of shape {shape}"
        values, _ = _topk_outputs(op, x, k, what)
        weights = c.randn(*values.shape, seed=seed + 1000, requires_grad=False, dtype=dtype)
        (grad,) = _op_call(c.backward_grads, values, [x], weights, what=f"the backward of {what}",
                           rules=TOPK_RULES + OP_RULES + (OP_ERROR,))
        if grad is None:
            c.fail("no-gradient", f"{what} gave x no gradient through the values: " + TOPK_HINT)
        expected = torch.zeros_like(x.detach()).scatter(-1, torch.topk(x.detach(), k, dim=-1).indices, weights)
        c.require_close(grad, expected, f"the gradient of x through the values of {what}", "gradient-not-scattered",
                        TOPK_HINT)
        _op_call(c.gradcheck, lambda t: op(t, k)[0], (x,), f"the values of {what}", "gradient-not-scattered",
                 TOPK_HINT, what=what, rules=TOPK_RULES + OP_RULES + (OP_ERROR,))


def _fake_kernel(op):
    """The fake kernel torch.library registered for numpy_topk (read from the registered CustomOpDef, not from
    whatever object claims to be one)."""
    fake = require_op(op, TOPK, TOPK_QUALNAME)["fake"]
    if fake is None:
        c.fail("no-fake-kernel", f"{TOPK} has no fake kernel: torch.compile, torch.export and opcheck run it on fake "
                                 "tensors (shape and dtype, no data), where NumPy cannot run. Register one with "
                                 "@numpy_topk.register_fake, returning two empty tensors: values and indices.")
    return fake


def topk_fake_kernel(op, cases=TOPK_FAKE_DEFAULT) -> None:
    """The registered fake kernel, called here on real inputs (it never reads their data), describes both of the
    real kernel's outputs: the same number, shapes, dtypes (int64 indices) and devices."""
    named, fake_kernel = op, None
    op = _runnable(op, TOPK_QUALNAME)
    for shape, k, dtype, seed in cases:
        x = _topk_input(shape, dtype, seed)
        what = f"numpy_topk(x, {k}) for a {dtype} x of shape {shape}"
        real = _topk_outputs(op, x, k, what)
        if fake_kernel is None:
            fake_kernel = _fake_kernel(named)
        fake = _op_call(fake_kernel, x, k, what=f"the fake kernel of {what}")
        fake = (fake,) if isinstance(fake, torch.Tensor) else tuple(fake) if isinstance(fake, (tuple, list)) else ()
        if len(fake) != 2 or not all(isinstance(t, torch.Tensor) for t in fake):
            c.fail("fake-kernel-mismatch", f"the fake kernel of {what} returned {len(fake)} tensor(s); it describes "
                                           "both outputs: return (an empty values tensor, an empty int64 indices tensor).")
        for name, r, f in (("values", real[0], fake[0]), ("indices", real[1], fake[1])):
            if (tuple(f.shape), f.dtype, f.device) != (tuple(r.shape), r.dtype, r.device):
                c.fail("fake-kernel-mismatch",
                       f"the fake kernel of {what} describes the {name} as shape {tuple(f.shape)}, {f.dtype}, but the "
                       f"real kernel returns shape {tuple(r.shape)}, {r.dtype}. Both outputs have shape "
                       "(*x.shape[:-1], k); the values x's dtype, the indices torch.int64.")


def topk_opcheck(op, cases=TOPK_OPCHECK_DEFAULT) -> None:
    """torch.library.opcheck(numpy_topk, (x, k)) passes (schema, fake kernel, autograd registration, AOT
    dispatch), in the learner's process."""
    op = require_op(op, TOPK, TOPK_QUALNAME)["operator"]
    for shape, k, dtype, requires_grad, seed in cases:
        x = _topk_input(shape, dtype, seed, requires_grad=requires_grad)
        what = f"torch.library.opcheck(numpy_topk, (x, {k})) for x of shape {shape}, {dtype}"
        _op_call(opcheck_results, op, (x, k), what=what, rules=TOPK_RULES + OPCHECK_RULES)
