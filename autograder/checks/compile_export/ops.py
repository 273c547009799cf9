"""What notebook 11's two custom operators share (see `compile_export`): what goes wrong, in words (the Rule
tables `OP_RULES` and `OPCHECK_RULES`), what an operator is (`op_facts`, `require_op`: read from torch.library's
registry and the dispatcher, never from the object's own attributes) and opcheck's verdict (`opcheck_results`).
"""

from __future__ import annotations

import torch
import torch._dynamo  # noqa: F401 - see below
import torch.export  # noqa: F401
import torch.testing._internal.optests as _optests
from torch._library import custom_ops as _custom_ops
from torch._subclasses.fake_tensor import FakeTensorMode

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
    Rule("not-implemented", error="names-not-implemented", message=
         "{what}: part of the answer is not implemented yet (it raises NotImplementedError)."),
    Rule("no-fake-kernel", error="no-fake-impl", message=
         "{what}: the operator has no fake kernel. torch.compile, torch.export and opcheck run it on fake "
         "tensors (shape and dtype, no data), where NumPy cannot run: " + literal(FAKE_HINT)),
    Rule("no-autograd", error="no-autograd", message=
         "{what}: autograd has no backward for the operator (\"no autograd formula was registered\"): "
         + literal(AUTOGRAD_HINT)),
    Rule("numpy-scalar", error="numpy-scalar", message=
         "{what}: torch.from_numpy received a NumPy scalar ({line}). For a 0-d input NumPy functions return a "
         "scalar, not an array, and torch.from_numpy takes only arrays."),
    Rule("strided-output", r"Stride mismatch",
         "{what}: the real kernel returns a tensor whose strides are not those of a fresh tensor of its shape "
         "({line}): a slice of a NumPy array (arr[..., :k]) is a view into the whole array, and torch.from_numpy "
         "keeps its strides. The fake kernel describes a fresh, contiguous tensor: return "
         "np.ascontiguousarray(...) (or .copy()) of the slice."),
    Rule("fake-kernel-mismatch", error=("fake-metadata", "cannot-broadcast"), message=
         "{what}: the fake kernel describes a different output than the real kernel produces ({line}). The "
         "fake kernel must return exactly the real output's shape and dtype."),
    Rule("kernel-mutates-or-aliases", "test_schema failed|not defined as mutable|may not alias",
         "{what}: the kernel changes its input or returns (a view of) it, which the schema (mutates_args=()) "
         "forbids ({line}). Return a new tensor and leave x untouched: no out= into x's own NumPy buffer, no "
         "in-place sort of x's data."),
)
OP_ERROR = Rule("op-error", None, "{what} raised {kind}: {line}")
# A fake kernel run where it is used, on fake tensors: one that reads its input's data (NumPy, .item(), a kernel)
# cannot run there.
FAKE_READS_DATA = Rule(
    "fake-kernel-reads-data",
    r"\.numpy\(\) is not supported for tensor subclasses|_local_scalar_dense|data-dependent",
    "{what}: the fake kernel reads x's data ({line}), but fake tensors have none: torch.compile, torch.export and "
    "opcheck call it with a shape, dtype and strides only. A fake kernel describes the outputs without computing "
    "them.")
OPCHECK_RULES = OP_RULES + (
    Rule("autograd-registration", "test_autograd_registration",
         "{what}: the autograd registration is wrong ({line}). " + literal(AUTOGRAD_HINT)),
    Rule("opcheck-failed", None, "{what} failed: {line}"),
)


def op_call(fn, *args, what: str, rules: tuple | None = None):
    """Call learner code; an error becomes the Mistake of the first rule of `rules` (by default the operator's
    rules, then any error as op-error) that recognises it."""
    with explained(what, OP_RULES + (OP_ERROR,) if rules is None else rules):
        return fn(*args)


def tolerance(dtype):
    return (1e-6, 1e-7) if dtype == torch.float32 else (1e-12, 1e-12)


def require_tensor(result, call: str, op: str, qualname: str) -> None:
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
CUSTOM_OP_DEF = torch.library.CustomOpDef
OPDEFS = _custom_ops.OPDEFS                      # qualname -> the CustomOpDef torch.library.custom_op registered
_OP_OVERLOAD, _OP_PACKET = torch._ops.OpOverload, torch._ops.OpOverloadPacket
_JIT_OPERATION, _OPERATION_OVERLOAD = torch._C._jit_get_operation, torch._C._get_operation_overload
_SCHEMA_OF = torch._C._get_schema
_TYPE, _ISSUBCLASS, _FUNCTION = type, issubclass, torch.autograd.Function
INSTANCE_DICT = object.__getattribute__


def dispatcher_op(qualname: str):
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
    facts = {"type": kind.__name__, "is_custom_op": kind is CUSTOM_OP_DEF,
             "is_function": _ISSUBCLASS(kind, type) and _ISSUBCLASS(op, _FUNCTION),
             "names": [], "operator": None, "fake": None}
    if not facts["is_custom_op"]:
        return facts
    facts["names"] = sorted(name for name, registered in list(OPDEFS.items()) if registered is op)
    named = qualname if qualname in facts["names"] else next(iter(facts["names"]), None)
    if named is not None:
        facts["operator"] = dispatcher_op(named)
        facts["fake"] = INSTANCE_DICT(op, "__dict__").get("_abstract_fn")
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
               f"kernel function with @torch.library.custom_op(\"{qualname}\", mutates_args=()).")
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


def runnable(op, qualname: str, name: str | None = None):
    """What the values and gradient tests call: the dispatcher's operator `qualname` (never the object's own
    `_opoverload`), once `op` is the CustomOpDef torch.library registered under that name (`require_op`). Anything
    else fails here: an object that only behaves like the operator (a plain function, a `__class__` that says
    CustomOpDef) earns no point of a custom operator's values."""
    return require_op(op, name or qualname.partition("::")[2], qualname)["operator"]


def surface(error: Exception):
    """Re-raise `error`, in the learner's process, so that what crosses to the judge (an error's type and
    message, not the chain of errors it wraps) still says what the rules read: an error wrapping the learner's
    NotImplementedError (opcheck's OpCheckError does) is raised as a NotImplementedError with the same
    message."""
    if not isinstance(error, NotImplementedError) and any(isinstance(e, NotImplementedError) for e in causes(error)):
        raise NotImplementedError(str(error)) from error
    raise error


def surfacing(fn, *args):
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 - re-raised
        surface(error)


# What torch.library.opcheck runs, bound before any answer: it looks `optests.opcheck` up at every call, and the
# module is imported here (not at the first opcheck), so the integrity record watches its names and keeps the code
# of its functions (autograder/engine/sandbox/integrity.py).
_OPCHECK, _DICT = _optests.opcheck, dict


@c.compiling_probe
def opcheck_results(op, args: tuple) -> dict:
    """In the learner's process: torch.library.opcheck(op, args) (optests.opcheck, as bound at import), its
    results by test name."""
    try:
        return _DICT(_OPCHECK(op, args))
    except Exception as error:  # noqa: BLE001 - re-raised
        surface(error)


# A custom operator on fake tensors, as torch.compile, torch.export and opcheck call it: the fake kernel where it is
# used (bound at import; FakeTensorMode's code is kept by the audit hook).
_FAKE_MODE, _EMPTY_STRIDED, _TENSOR, _TUPLE, _INT, _STR = (
    FakeTensorMode, torch.empty_strided, torch.Tensor, tuple, int, str)


@c.probe
def fake_outputs(qualname: str, shape: tuple, stride: tuple, dtype, extra: tuple = ()) -> list:
    """In the learner's process: the dispatcher's operator `qualname` (made here from the C registry, no object of
    the answer's) called as op(x, *extra) under a FakeTensorMode, x a fake tensor of that shape, strides and dtype
    (no data); each output's (shape, strides, dtype name), None for what is not a tensor. The judge compares them
    with its own expectation (`require_op` has found the operator first)."""
    op = dispatcher_op(qualname)
    with _FAKE_MODE():
        out = op(_EMPTY_STRIDED(shape, stride, dtype=dtype), *extra)
    out = out if isinstance(out, (tuple, list)) else (out,)
    return [(_TUPLE(_INT(n) for n in t.shape), _TUPLE(_INT(n) for n in t.stride()), _STR(t.dtype))
            if isinstance(t, _TENSOR) else None for t in out]


def as_metadata(item):
    """(shape, strides, dtype name) from one item of what fake_outputs sent back, or None where it is not that:
    hostile data, read as plain ints and strings or not at all."""
    try:
        shape, stride, dtype = item
        return (tuple(int(n) for n in shape), tuple(int(n) for n in stride), str(dtype))
    except (TypeError, ValueError):
        return None


def contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for size in reversed(tuple(shape)):
        strides.append(step)
        step *= max(int(size), 1)
    return tuple(reversed(strides))


_OWN_KERNELS: dict = {}


@c.probe
def use_kernel_on_copies(qualname: str, on: bool) -> None:
    """In the learner's process: while `on`, the operator `qualname` (found in torch.library's registry) runs its own
    kernel on copies of its tensor arguments, and its outputs come back in the dtypes the contract gives them (the
    first, x's; a second, int64: top-k's indices); then as written again. A kernel that changes x or returns another
    dtype breaks the values test's rule: the tests of the other rules (the backward, opcheck's schema and fake kernel,
    compile, export) then judge their own property, not that one again. A kernel that casts its outputs and copies
    its input is a right kernel: nothing here can make a wrong one pass the values test, which runs without it."""
    opdef = OPDEFS.get(qualname)
    if type(opdef) is not CUSTOM_OP_DEF:
        return
    kernels = INSTANCE_DICT(opdef, "__dict__").get("_backend_fns")
    if type(kernels) is not dict or None not in kernels:
        return
    if on and qualname not in _OWN_KERNELS:
        own = _OWN_KERNELS[qualname] = kernels[None]

        def on_copies(*args, **kwargs):  # made here at each use: the learner's own kernel, on copies
            out = own(*(a.clone() if isinstance(a, torch.Tensor) else a for a in args), **kwargs)
            dtypes = (args[0].dtype, torch.int64) if isinstance(args[0], torch.Tensor) else ()
            if isinstance(out, torch.Tensor) and dtypes:
                return out.to(dtypes[0])
            if isinstance(out, tuple) and dtypes:
                return tuple(t.to(d) if isinstance(t, torch.Tensor) else t for t, d in zip(out, dtypes)) + out[2:]
            return out

        kernels[None] = on_copies
    elif not on and qualname in _OWN_KERNELS:
        kernels[None] = _OWN_KERNELS.pop(qualname)
