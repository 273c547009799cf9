"""Run one test of one submission in a fresh, limited process, and report what happened.

The zygote is a long-lived process that imports torch, NumPy and the checks once (about 2 s) and warms
up autograd, and then never runs student code itself. For every test it forks a child that:

1. drops every file descriptor it inherited and confines itself with the kernel's help where available:
   seccomp (no new processes, no exec, no ptrace, no signal handlers, no network sockets, no signals to
   other processes), Landlock (no reading the instructor's files, the gradebook or other students' work,
   no writing outside its own temporary folder, no TCP), rlimits (memory, file size, no core dumps);
2. installs a Python audit hook that cannot be removed (the same file rules for systems without Landlock,
   no introspection of the grader's frames, no code objects disguised as library code, no rewriting of
   functions' code) and runs the notebook's setup cells and the student's answer cells;
3. proves that student code left the trusted state untouched (an integrity snapshot of the functions and
   classes the checks use, builtins, `sys.modules`, the import system, PyTorch's thread-local modes and
   dispatch keys, no tensor subclass or mode with its own `__torch_function__`/`__torch_dispatch__`),
   only then reads the test source (so student code never sees it) and runs it in a namespace whose
   builtins and setup names are restored, and proves the state untouched once more. While the test runs,
   a watchdog (for answers that use reflection, finalizers or global state; Limits.watchdog) checks at
   every entry into and exit from student code that nothing the checks use has changed, even briefly;
4. with no student code able to run any more (gc off, no handlers, no threads), reads a nonce that was
   never in its memory before, opens the result channel (a FIFO in a folder only this step may open) and
   reports passed / failed / error with plain feedback, tagged with the nonce.

The zygote enforces the time limit, notices a child that died, and accepts nothing but one well-formed,
nonce-tagged JSON line from the channel (never a pickle). A fork costs a few milliseconds and shares
nothing with other students: every test starts from the zygote's pristine memory. The zygote holds no
secret: it receives each test's source per request. See docs/threat-model.md for what this does and
does not guarantee.
"""

from __future__ import annotations

import builtins
import gc
import io
import json
import os
import resource
import secrets
import select
import signal
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
import types
from dataclasses import asdict, dataclass, field
from pathlib import Path

# --------------------------------------------------------------------------------------------- protocol
# Length-prefixed JSON both ways. Never pickle: unpickling bytes a child managed to write would be code
# execution in the instructor's process.


def _send(stream, obj) -> None:
    data = json.dumps(obj).encode("utf-8")
    stream.write(struct.pack("!I", len(data)) + data)
    stream.flush()


def _read_exact(stream, size: int) -> bytes:
    parts, remaining = [], size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            raise EOFError("sandbox process closed its channel")
        parts.append(chunk)
        remaining -= len(chunk)
    return b"".join(parts)


def _recv(stream):
    (size,) = struct.unpack("!I", _read_exact(stream, 4))
    return json.loads(_read_exact(stream, size))


@dataclass
class Limits:
    seconds_per_test: float = 60.0     # wall time for answers + one test (torch.compile tests need ~15 s)
    memory_mb: int = 1536              # address space added on top of the zygote's own (Binder has 2 GB)
    output_bytes: int = 64_000         # captured stdout/stderr per test; the rest is dropped
    file_bytes: int = 32_000_000       # largest file the child may write (in its own temp folder)
    watchdog: str = "auto"             # verify the grader's state each time student code returns to it
                                       # (catches changes undone before the test ends; checks run 2-6x
                                       # slower): "always", "never", or "auto" = when the answers use
                                       # reflection, finalizers or global state (see _needs_watchdog)


@dataclass
class Outcome:
    status: str                 # passed | failed | error | timeout
    feedback: str = ""          # plain words for the learner
    mistake: str = ""           # stable id of the mistake (failed checks) or of the fault
    output: str = ""            # what the answer cells printed (truncated)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)


@dataclass
class Job:
    cells: list                 # [(label, source)] setup and answer cells, in notebook order
    test_id: str
    test_source: str
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    protected: list = field(default_factory=list)   # folders the child may not read (solutions, gradebook)


STATUSES = ("passed", "failed", "error", "timeout")


def _job_to_wire(job: Job) -> dict:
    return asdict(job)


def _job_from_wire(data: dict) -> Job:
    return Job([tuple(cell) for cell in data["cells"]], data["test_id"], data["test_source"],
               int(data.get("seed", 0)), Limits(**data.get("limits", {})), list(data.get("protected", [])))


def _plain_json(value, depth: int = 0):
    """`value` if it is made of exact JSON types only (no subclass whose methods could run), else None."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if depth > 5:
        return None
    if kind in (list, tuple):
        return [_plain_json(v, depth + 1) for v in value]
    if kind is dict:
        return {k: _plain_json(v, depth + 1) for k, v in value.items() if type(k) is str}
    return None


def _outcome_from_wire(data) -> Outcome:
    """An Outcome from a decoded message; ValueError unless it is exactly what the sandbox sends."""
    if type(data) is not dict or data.get("status") not in STATUSES:
        raise ValueError("malformed outcome")

    def text(key: str) -> str:
        value = data.get(key, "")
        return value if type(value) is str else ""

    seconds = data.get("seconds", 0.0)
    details = _plain_json(data.get("details", {}))
    return Outcome(data["status"], text("feedback"), text("mistake"), text("output"),
                   float(seconds) if type(seconds) in (int, float) else 0.0,
                   details if type(details) is dict else {})


# -------------------------------------------------------------------------------- who may do what

TRUSTED_MODULES = (
    "builtins", "sys", "os", "posix", "math", "json", "json.decoder", "json.encoder", "dataclasses",
    "traceback", "linecache", "re", "inspect", "types", "functools", "io", "select", "struct", "signal",
    "_signal", "gc", "marshal", "importlib", "importlib._bootstrap", "importlib._bootstrap_external",
    "_frozen_importlib", "_frozen_importlib_external", "copy", "operator", "abc", "contextlib", "weakref",
    "itertools", "collections", "secrets", "resource", "tempfile",
    "torch", "torch._C", "torch._C._VariableFunctions", "torch._tensor", "torch.functional", "torch.random",
    "torch.autograd", "torch.autograd.function", "torch.autograd.gradcheck", "torch.autograd.graph",
    "torch.autograd.grad_mode", "torch.autograd.forward_ad", "torch.autograd.functional", "torch._ops",
    "torch.overrides", "torch.library", "torch.testing", "torch.testing._comparison", "torch.nn",
    "torch.nn.functional", "torch.nn.modules.module", "torch.nn.parameter", "torch.func",
    "torch.utils.checkpoint", "torch.utils._python_dispatch", "torch.utils._pytree", "torch._utils",
    "numpy", "numpy.testing", "numpy.linalg",
)
TRUSTED_CLASSES = ("torch.Tensor", "torch.autograd.Function", "torch._C.TensorBase")
# Registries the checks depend on whose *contents* (not just identity) must not change.
REGISTRIES = ("gc.callbacks", "sys.meta_path", "sys.path_hooks",
              "torch.nn.modules.module._global_forward_hooks",
              "torch.nn.modules.module._global_forward_pre_hooks",
              "torch.nn.modules.module._global_backward_hooks",
              "torch.nn.modules.module._global_backward_pre_hooks")
STUDENT_FILE_PREFIX = "<answer"
CHANNEL_PREFIX = "autograder-channel-"
WORKDIR_PREFIX = "grading-"


def _library_dirs() -> list[str]:
    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)}
    dirs.add(os.path.dirname(os.path.abspath(__file__)))  # the autograder package itself
    out = set()
    for directory in dirs:
        for form in (os.path.abspath(directory), os.path.realpath(directory)):
            out.add(form.rstrip(os.sep) + os.sep)
    return sorted(out)


# Code from these places is the grader's or a library's. Everything else (answer cells, files written in
# the temporary folder, "<string>" code, ...) counts as student code.
_TRUSTED_PREFIXES = tuple(_library_dirs()) + ("<frozen ", "<test:", "<setup:")
_STDLIB = sysconfig.get_paths()["stdlib"].rstrip(os.sep) + os.sep
# Library code that hands frames or their locals back to its caller: never on behalf of student code.
_FRAME_LEAKERS = tuple(_STDLIB + name for name in (
    "inspect.py", "traceback.py", "pdb.py", "bdb.py", "cgitb.py", "code.py", "codeop.py", "trace.py",
    "doctest.py", "pydoc.py", "profile.py", "cProfile.py", "asyncio" + os.sep, "tracemalloc.py"))
_THIS_FILE = os.path.abspath(__file__)
_TYPE_DICT = type.__dict__["__dict__"].__get__
_TYPE_MRO = type.__dict__["__mro__"].__get__
_TYPE_QUALNAME = type.__dict__["__qualname__"].__get__
_TYPE_FLAGS = type.__dict__["__flags__"].__get__
_MODULE_DICT = types.ModuleType.__dict__["__dict__"].__get__
# An object's identity, as id() gives it but without id()'s audit event (a hook call per object would
# make the integrity check several times slower): the address, rotated.
_IDENT = object.__hash__
_EXC_TRACEBACK = BaseException.__traceback__.__get__
_STACK_ROOT = None  # the code of _child, set below: frames under it are the zygote's


def _is_trusted_file(name) -> bool:
    return type(name) is str and name.startswith(_TRUSTED_PREFIXES)


def _untrusted_on_stack(frame) -> bool:
    """Is any frame from `frame` down to the child's entry point student code?"""
    while frame is not None:
        code = frame.f_code
        if code is _STACK_ROOT:
            return False
        if not code.co_filename.startswith(_TRUSTED_PREFIXES):
            return True
        frame = frame.f_back
    return False


def _plain(text, default: str = "") -> str:
    """An exact str (a str subclass could run code when used); never calls student code."""
    if type(text) is str:
        return text
    if issubclass(type(text), str):  # a str subclass: copy its characters without calling its methods
        return str.__str__(text)
    return default


def _type_name(cls) -> str:
    try:
        return _plain(_TYPE_QUALNAME(cls), "?")
    except Exception:  # noqa: BLE001
        return "?"


_PATH_CLASSES = (__import__("pathlib").PurePosixPath, __import__("pathlib").PosixPath)


def _path_text(arg):
    """The text of a path argument, without running any code of the argument's own class: a student's
    str subclass or __fspath__ would run inside the audit hook, where nothing is checked. None if `arg`
    is not a path (a file descriptor, None); PermissionError for a path object of an untrusted class."""
    kind = type(arg)
    if kind is str:
        return arg
    if kind is bytes:
        return os.fsdecode(arg)
    if kind in _PATH_CLASSES:
        return str.__str__(arg.__fspath__())
    mro = _TYPE_MRO(kind)
    if any(k is str for k in mro):
        return str.__str__(arg)  # an exact copy, made in C
    if any(k is bytes for k in mro):
        return os.fsdecode(bytes.__getitem__(arg, slice(None)))
    if _class_attr(kind, "__fspath__") is not None:
        raise PermissionError("not allowed while grading: a path given as an object of your own class "
                              "(pass a str or a pathlib.Path)")
    return None


def _class_attr(cls, name: str):
    """`name` as found on class `cls` (through its MRO), without running any descriptor or metaclass."""
    for klass in _TYPE_MRO(cls):
        namespace = _TYPE_DICT(klass)
        if name in namespace:
            return namespace[name]
    return None


def _trusted_code_object(obj) -> bool:
    """obj is (a classmethod/staticmethod of) a function whose code comes from a trusted file."""
    if type(obj) in (classmethod, staticmethod):
        obj = obj.__func__
    if type(obj) is types.MethodType:
        obj = obj.__func__
    if type(obj) is types.FunctionType:
        return _is_trusted_file(obj.__code__.co_filename)
    return False


def _trusted_callable(obj) -> bool:
    for _ in range(4):
        if type(obj) in (types.FunctionType, types.MethodType, classmethod, staticmethod):
            return _trusted_code_object(obj)
        if type(obj) in (types.BuiltinFunctionType, types.BuiltinMethodType):
            return False
        obj = _class_attr(type(obj), "__call__")
        if obj is None:
            return False
    return False


# ----------------------------------------------------------------------------------------- the zygote

_ZYGOTE_FDS: tuple = ()
_CHANNEL_ROOT: str | None = None
_BASELINE = types.MappingProxyType({})  # set once in the zygote, read-only (a mutable dict could be edited)
_READ_ROOTS: dict = {}
_LIBC = None


def _prepare() -> None:
    """Everything the children share: imported once here, never touched by student code."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import ctypes  # noqa: F401  (for seccomp and Landlock, set up in each child before student code)
    import numpy  # noqa: F401
    import torch

    torch.set_num_threads(1)  # one thread per grading process; also keeps fork() safe with OpenMP
    import matplotlib  # noqa: F401  (answer or setup cells may import pyplot; ~0.3 s saved per test)
    import matplotlib.pyplot  # noqa: F401
    import IPython.core.inputtransformer2  # noqa: F401  (cells may hold magics; ~0.1 s saved per test)
    import torch.func  # noqa: F401
    import torch.library  # noqa: F401
    import torch.utils.checkpoint  # noqa: F401
    import autograder.checks as checks_pkg

    for module in sorted(p.stem for p in Path(checks_pkg.__file__).parent.glob("*.py")):
        if not module.startswith("_"):
            __import__(f"autograder.checks.{module}")
    # The first gradcheck in a process costs 0.3-0.5 s of lazy initialisation: pay it once, here.
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
    torch.autograd.grad((x.exp() * x).sum(), x, create_graph=True)
    _guard_torch_entry_points()


def _guard_torch_entry_points() -> None:
    """Wrap the few PyTorch entry points that would let student code change what every later PyTorch call
    computes, or see the grader's frames, without touching any Python attribute the snapshot watches."""
    import torch

    builtin_namespaces = frozenset(name.split("::")[0] for name in torch._C._dispatch_get_all_op_names())
    dispatch_library = torch._C._dispatch_library

    def _dispatch_library(kind, ns, *args, **kwargs):
        if kind != "DEF" and ns in builtin_namespaces and _untrusted_on_stack(sys._getframe(1)):
            raise PermissionError(f"not allowed while grading: registering kernels for PyTorch's own "
                                  f"operators (namespace '{ns}'); define your own operator instead")
        return dispatch_library(kind, ns, *args, **kwargs)

    torch._C._dispatch_library = _dispatch_library

    from torch._C._dynamo import eval_frame

    set_eval_frame = eval_frame.set_eval_frame

    def _set_eval_frame(callback, *args, **kwargs):
        if not (callback is None or callback is False or callback is True or _trusted_callable(callback)):
            raise PermissionError("not allowed while grading: a frame-evaluation callback of your own")
        return set_eval_frame(callback, *args, **kwargs)

    eval_frame.set_eval_frame = _set_eval_frame
    _guard_finalize()
    for name in ("torch._dynamo.eval_frame", "torch._dynamo.decorators"):
        module = sys.modules.get(name)
        for attr in ("set_eval_frame", "_maybe_set_eval_frame"):
            if module is not None and getattr(module, attr, None) is set_eval_frame:
                setattr(module, attr, _set_eval_frame)


def _guard_finalize() -> None:
    """weakref.finalize(obj, setattr, module, "name", value) would let student code change the grader's
    state from a finalizer, with no student frame on the stack for the watchdog to see. Student code may
    register only functions of its own (which run as student frames). This replaces finalize.__init__ by
    an equivalent that keeps no reference to the original, so there is nothing to fish out of it."""
    import weakref

    finalize = weakref.finalize

    def __init__(self, obj, func, /, *args, **kwargs):
        caller = sys._getframe(1).f_code.co_filename
        if not caller.startswith(_TRUSTED_PREFIXES) and _trusted_callable_or_builtin(func):
            raise PermissionError("not allowed while grading: weakref.finalize with a callable that is not "
                                  "a function of your own")
        if not finalize._registered_with_atexit:
            import atexit

            atexit.register(finalize._exitfunc)
            finalize._registered_with_atexit = True
        info = finalize._Info()
        info.weakref = weakref.ref(obj, self)
        info.func = func
        info.args = args
        info.kwargs = kwargs or None
        info.atexit = True
        info.index = next(finalize._index_iter)
        finalize._registry[self] = info
        finalize._dirty = True

    __init__.__qualname__ = "finalize.__init__"
    finalize.__init__ = __init__


def _trusted_callable_or_builtin(func) -> bool:
    """Anything but a function (or method) compiled from student code."""
    if type(func) is types.MethodType:
        func = func.__func__
    return not (type(func) is types.FunctionType and not _is_trusted_file(func.__code__.co_filename))


def _resolve(dotted: str):
    module, _, attr = dotted.rpartition(".")
    return getattr(sys.modules[module], attr)


def _trusted_module_names() -> list[str]:
    return list(TRUSTED_MODULES) + sorted(n for n in list(sys.modules) if n == "autograder" or n.startswith("autograder."))


def snapshot(previous: dict | None = None) -> dict:
    """Identity of everything a verdict depends on: module attributes, the classes and functions those
    modules define (class dicts, functions' code and defaults), key classes, sys.modules and a few
    registries. Safe to call after student code ran: it never calls a method of a student object.
    Namespaces are recorded whole, as (names, identities) taken at C speed, and `changed` looks at single
    names only where a namespace differs; the functions and classes to watch are found once, by the first
    call (the zygote's, before any student code), so a check costs milliseconds per test, not tenths."""
    global _WATCHED
    if _WATCHED is None:
        _WATCHED = _definitions()
    state = {}
    tags = previous.get(("tags",), {}) if previous is not None and _TAGS_WORK else {}
    new_tags = {}

    def record(key, namespace) -> None:
        # An unchanged version tag on the same dict means an unchanged dict: reuse the old entry.
        version = _dict_tag(namespace) if _TAGS_WORK else None
        tag = (_IDENT(namespace), version) if version is not None else None
        if tag is not None and tags.get(key) == tag and key in previous:
            state[key] = previous[key]
        else:
            state[key] = _namespace_ids(namespace)
        if tag is not None:
            new_tags[key] = tag

    for name in _trusted_module_names():
        module = sys.modules.get(name)
        if module is None:
            continue
        state[("sys.modules", name)] = _IDENT(module)
        try:
            namespace = _MODULE_DICT(module)
        except TypeError:  # not a module any more (the identity above already differs)
            continue
        record(("module", name), namespace)
    functions, classes = _WATCHED
    for label, function in functions:
        state[("function", label)] = (_IDENT(function.__code__), _IDENT(function.__defaults__),
                                      _items_ids(function.__kwdefaults__))
    for label, namespace in classes:
        record(("class", label), namespace)
    for dotted in REGISTRIES:
        try:
            container = _resolve(dotted)
        except (KeyError, AttributeError):
            continue
        state[("registry", dotted)] = _items_ids(container)
    state[("registry", "sys.path_importer_cache")] = _items_ids(sys.path_importer_cache)
    if _TAGS_WORK:
        state[("tags",)] = new_tags
    return state


# CPython (3.11 to 3.13) gives every dict a version tag, changed by every insertion, replacement and
# deletion (PEP 509): reading it tells whether a namespace changed without touching its values, each of
# which would cost a copy-on-write page fault in a forked process. PyDictObject: refcount, type, ma_used,
# then ma_version_tag.
_TAG_OFFSET = 3 * struct.calcsize("P")


def _dict_tag(namespace: dict) -> int | None:
    """The version tag of a real dict. The child's audit hook lets this function, and no other code, make
    a ctypes view: all it can read is the tag of a dict, which is no secret."""
    import ctypes

    if type(namespace) is not dict:
        return None
    return ctypes.c_uint64.from_address(id(namespace) + _TAG_OFFSET).value


def _type_namespace(cls) -> dict:
    """The real dict behind a class's mappingproxy (found in the zygote: gc.get_referents runs no Python
    code, but is not allowed while student code may run). A class keeps its dict for life."""
    inner = gc.get_referents(_TYPE_DICT(cls))
    # Otherwise the live mappingproxy (re-read at every check), never a copy that could not change.
    return inner[0] if len(inner) == 1 and type(inner[0]) is dict else _TYPE_DICT(cls)


def _tags_work() -> bool:
    if sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] <= (3, 13):
        return False
    probe: dict = {}
    seen = [_dict_tag(probe)]
    probe["a"] = 1
    seen.append(_dict_tag(probe))
    probe["a"] = 2
    seen.append(_dict_tag(probe))
    del probe["a"]
    seen.append(_dict_tag(probe))
    return None not in seen and len(set(seen)) == 4


_TAGS_WORK = _tags_work()
_DICT_TAG_CODE = _dict_tag.__code__
_WATCHED = None  # (functions, classes) the trusted modules define: found by the first snapshot


def _definitions() -> tuple:
    """The functions and classes each trusted module defines itself, plus TRUSTED_CLASSES."""
    functions, classes = [], []
    for name in _trusted_module_names():
        module = sys.modules.get(name)
        if module is None:
            continue
        for attr, value in list(_MODULE_DICT(module).items()):
            kind = type(value)
            if kind is types.FunctionType:
                module_name = value.__module__
                if type(module_name) is str and module_name == name:
                    functions.append((f"{name}.{attr}", value))
            elif _TYPE_FLAGS(kind) & (1 << 31):  # a class
                try:
                    module_name = _TYPE_DICT(value).get("__module__")
                except TypeError:
                    continue
                if type(module_name) is str and module_name == name:
                    classes.append((f"{name}.{_type_name(value)}", _type_namespace(value)))
    for dotted in TRUSTED_CLASSES:
        try:
            classes.append((dotted, _type_namespace(_resolve(dotted))))
        except (KeyError, AttributeError):
            continue
    return tuple(functions), tuple(classes)


def _namespace_ids(namespace) -> tuple:
    """(names, identities of their values) of a module's or class's namespace, without running any method
    of the values (dict.keys/values of the real dict, never the mapping's own methods)."""
    if type(namespace) is types.MappingProxyType:
        namespace = dict(namespace)  # a class's namespace: copying a mappingproxy of a real dict runs no code
    names = tuple(dict.keys(namespace))
    if not set(map(type, names)) <= {str}:
        # A key of the student's own class would run its __hash__/__eq__ when `changed` compares names,
        # and could answer differently each time: such keys are recorded by identity instead.
        names = tuple(k if type(k) is str else _IDENT(k) for k in names)
    return names, tuple(map(_IDENT, dict.values(namespace)))


def _items_ids(container):
    if issubclass(type(container), dict):
        return tuple((k if type(k) is str else _IDENT(k), _IDENT(v)) for k, v in dict.items(container))
    if type(container) in (list, tuple):
        return tuple(_IDENT(v) for v in container)
    return _IDENT(container)


# Attributes that legitimately change while grading (our own output capture, exception bookkeeping).
_VOLATILE = frozenset({"__warningregistry__", "_base_seed", "stdout", "stderr", "stdin", "last_type", "last_value",
             "last_traceback", "last_exc", "_cache", "tempdir", "_once_registry", "filters",
             "_filters_version", "_is_in_torch_dispatch_mode", "_is_in_non_infra_torch_dispatch_mode",
             "_is_in_any_mode_without_ignore_compile_internals", "_name_sequence",
                       "_dirty", "_registered_with_atexit", "Storage"})  # torch.Storage follows the dtype


# Names the standard library caches on classes (copyreg: pickle and copy), harmless to add.
_CLASS_CACHES = frozenset({"__slotnames__"})


def changed(before: dict, after: dict) -> list[str]:
    """Names whose object was replaced or removed (new attributes, e.g. lazy imports, are fine)."""
    out = []
    for key, ident in before.items():
        if key == ("tags",):
            continue
        now = after.get(key)
        if now == ident:  # tuples of ints and strings: comparing them runs no student code
            continue
        kind = key[0]
        if kind == "registry" and key[1] == "sys.path_importer_cache":
            current = dict(now or ())
            if any(current.get(k, v) != v for k, v in ident):  # a cached finder replaced (new ones are fine)
                out.append("sys.path_importer_cache")
        elif kind in ("module", "class"):
            old_names, old_ids = ident
            current = dict(zip(*now)) if now is not None else {}
            for attr, old in zip(old_names, old_ids):
                if current.get(attr) != old and not (kind == "module" and attr in _VOLATILE):
                    out.append(f"{key[1]}.{attr}")
            if kind == "class":  # a name added to a class shadows its bases' (Tensor.add over TensorBase.add)
                known = set(old_names) | _CLASS_CACHES
                out += [f"{key[1]}.{attr}" for attr in current if attr not in known]
        elif kind == "sys.modules":
            out.append(f"sys.modules[{key[1]!r}]")
        elif kind == "function":
            out.append(f"{key[1]} (its code or defaults)")
        else:
            out.append(key[1])
    return out


def _torch_state() -> dict:
    """PyTorch's thread-local and global switches that decide what every later operation computes."""
    import torch

    C = torch._C
    state = {
        "a torch function mode": C._len_torch_function_stack(),
        "a torch dispatch mode": C._len_torch_dispatch_stack(),
        "an infra dispatch mode": tuple(C._get_dispatch_mode(k) is not None
                                        for k in C._TorchDispatchModeKey.__members__.values()),
        "grad mode": C.is_grad_enabled(),
        "forward-mode AD": C._is_fwd_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "__torch_function__ handling": (C._is_torch_function_enabled(), C._is_torch_function_all_disabled()),
        "included dispatch keys": str(C._dispatch_tls_local_include_set()),
        "excluded dispatch keys": str(C._dispatch_tls_local_exclude_set()),
        "functorch transforms": C._are_functorch_transforms_active(),
        "autocast": C._is_any_autocast_enabled(),
        "saved tensor hooks": (C._autograd._saved_tensors_hooks_is_enabled(),
                               C._autograd._top_saved_tensors_default_hooks(False) is None),
    }
    return state


def _benign_torch_state() -> dict:
    import torch

    return {"default dtype": torch.get_default_dtype(), "anomaly": torch.is_anomaly_enabled(),
            "deterministic": torch.are_deterministic_algorithms_enabled()}


def _restore_benign_torch_state(baseline: dict) -> None:
    """Global settings a student may change harmlessly (set_default_dtype, detect_anomaly): reset them
    for the test instead of calling them tampering."""
    import torch

    torch.set_default_dtype(baseline["default dtype"])
    torch.autograd.set_detect_anomaly(baseline["anomaly"])
    torch.use_deterministic_algorithms(baseline["deterministic"])


def _untrusted_overrides() -> list[str]:
    """Tensor subclasses and modes defined by student code that override __torch_function__ or
    __torch_dispatch__: a tensor that lies to the checks' comparisons (allclose -> True)."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    found, seen = [], set()
    stack = [torch._C.TensorBase, TorchFunctionMode, TorchDispatchMode]
    while stack:
        cls = stack.pop()
        for sub in type.__subclasses__(cls):
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            stack.append(sub)
            for name in ("__torch_function__", "__torch_dispatch__"):
                impl = _class_attr(sub, name)
                if impl is None or impl is torch._C._disabled_torch_function_impl \
                        or impl is getattr(torch._C, "_disabled_torch_dispatch_impl", None):
                    continue
                if not _trusted_code_object(impl):
                    found.append(f"{_type_name(sub)}.{name}")
    return found


def _restore_interpreter_settings() -> None:
    """Settings a student may change harmlessly: reset them for the test (and for the grader's own work)."""
    import warnings

    sys.setrecursionlimit(_BASELINE["recursion limit"])
    sys.set_int_max_str_digits(_BASELINE["int digits"])
    sys.path[:] = _BASELINE["sys.path"]
    warnings.filters[:] = _BASELINE["warnings"]
    warnings._filters_mutated()
    _restore_benign_torch_state(_BASELINE["benign"])


_TAMPER_EXIT, _WATCHDOG_EXIT = 71, 72

# Answers that import only these, and use no reflection, dunder attributes, finalizers or assignments into
# modules, cannot change the grader's state behind its back: they run without the (costly) watchdog.
_PLAIN_IMPORTS = frozenset({"torch", "numpy", "math", "typing", "dataclasses", "collections", "functools",
                            "itertools", "operator", "abc", "enum", "warnings", "matplotlib", "numbers",
                            "__future__", "random", "time", "string", "textwrap", "pprint", "statistics"})
_REFLECTIVE_NAMES = frozenset({"setattr", "delattr", "getattr", "globals", "locals", "vars", "eval", "exec",
                               "compile", "__import__", "breakpoint", "memoryview", "type", "object",
                               "super", "__builtins__", "__loader__", "__spec__", "classmethod", "property"})
_PLAIN_DUNDERS = frozenset({"__init__", "__name__", "__doc__", "__repr__", "__str__", "__post_init__",
                            "__future__", "__main__", "__len__", "__iter__", "__next__"})


def _needs_watchdog(sources: list) -> bool:
    """A quick look at the answer cells: True unless they are plainly code that only computes."""
    import ast

    for source in sources:
        try:
            tree = ast.parse(_transform(source))
        except SyntaxError:
            continue
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if node.__class__ is ast.ImportFrom and node.level:
                    return True
                for name in names:
                    if name.split(".")[0] not in _PLAIN_IMPORTS:
                        return True
                modules.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.Name) and node.id in _REFLECTIVE_NAMES:
                return True
            elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in _PLAIN_DUNDERS:
                return True
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("__") \
                    and node.name not in _PLAIN_DUNDERS:
                return True
            elif isinstance(node, ast.keyword) and node.arg in ("allow_pickle", "weights_only"):
                return True
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                return True
        # Assignments into anything reached from an imported module (torch.Tensor.x = ..., F = torch.nn...;
        # F.x = ...): names bound from module expressions count as modules too.
        derived = set(modules)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _root_name(node.value) in derived:
                derived.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and _root_name(node) in derived:
                return True  # torch._C, np._core...: private machinery
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else \
                node.targets if isinstance(node, ast.Delete) else []
            for target in targets:
                if isinstance(target, (ast.Attribute, ast.Subscript)) and _root_name(target) in derived:
                    return True
    return False


def _root_name(node):
    import ast

    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _critical_namespaces() -> list:
    """(namespace, strict) pairs whose contents decide a check at every moment: the checks' modules, the
    builtins, the PyTorch and NumPy functions the checks call and the classes whose methods they use.
    `strict` (classes): no new names either (a new method would shadow an inherited one); in modules a new
    name matters only if it shadows a builtin. torch.export patches builtins.max/min while it traces: those
    two are not watched."""
    import weakref

    import torch
    import torch.autograd.function as function

    names = ["builtins", "torch", "torch.autograd", "torch.autograd.function", "torch.autograd.gradcheck",
             "torch.autograd.graph", "torch.autograd.grad_mode", "torch.testing", "torch.testing._comparison",
             "torch.nn.functional", "torch.overrides", "numpy", "numpy.testing", "inspect", "re", "weakref"]
    ours = sorted(n for n in sys.modules if n == "autograder" or n.startswith("autograder."))
    out = [(_MODULE_DICT(sys.modules[n]), False) for n in names + ours if n in sys.modules]
    classes = [torch.Tensor, torch.autograd.Function, function.BackwardCFunction, function.FunctionCtx,
               function._SingleLevelFunction]
    for n in ours:
        for value in list(_MODULE_DICT(sys.modules[n]).values()):
            if _TYPE_FLAGS(type(value)) & (1 << 31) and _TYPE_DICT(value).get("__module__") == n:
                classes.append(value)
    out += [(_TYPE_DICT(cls), True) for cls in classes]
    return out


def _torch_state_tuple():
    return tuple(_torch_state().values())


def _make_watchdog():
    """A profile function that, each time student code is entered from or returns to the grader or a
    library, verifies that the critical namespaces are exactly as before the test, and on return that
    PyTorch's modes and switches are as they were when the student code was entered; on any difference the process exits at once with
    _TAMPER_EXIT (a change undone later, e.g. by a finalizer, is still caught). Everything it uses is
    bound as a keyword default: student code can read but not rebind those (the audit hook refuses
    __kwdefaults__), and a sys.getprofile() of theirs gets nothing it could switch off."""
    import operator

    entries = []
    for namespace, strict in _critical_namespaces():
        keys = tuple(k for k in namespace.keys() if namespace is not builtins.__dict__ or k not in ("max", "min"))
        if not keys:
            continue
        getter = operator.itemgetter(*keys, keys[0])  # always a tuple, even for one key
        entries.append((namespace, len(namespace), frozenset(namespace.keys()), keys, getter, getter(namespace),
                        strict))
    report = os.path.join(os.getcwd(), ".grader-watchdog")

    def _exit(code, what="", *, _open=os.open, _write=os.write, _flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
              _report=report, _quit=os._exit):
        try:
            _write(_open(_report, _flags, 0o600), what.encode("utf-8", "replace")[:300])
        finally:
            _quit(code)

    def _name(namespace, keys, values):
        for key, value in zip(keys, values):
            if namespace.get(key, _name) is not value:
                return str(key)
        return "a name"

    def watchdog(frame, event, arg, *, _entries=tuple(entries), _trusted=_TRUSTED_PREFIXES, _is=operator.is_,
                 _all=all, _map=map, _len=len, _state=_torch_state_tuple, _exit=_exit, _name=_name,
                 _builtins=frozenset(builtins.__dict__), _codes=(_TAMPER_EXIT, _WATCHDOG_EXIT)):
        if event != "return" and event != "call":
            return
        try:
            if frame.f_code.co_filename.startswith(_trusted):
                return
            back = frame.f_back
            if back is not None and not back.f_code.co_filename.startswith(_trusted):
                return  # student code calling student code: only the boundary matters
            if event == "call":
                frame.f_trace = _state()  # remembered on the frame itself, out of student code's reach
            elif frame.f_trace != _state():
                _exit(_codes[0], "PyTorch's modes or switches (left changed by " + frame.f_code.co_name + ")")
            # On the way in as well as out: a change made from a finalizer while only library code ran is
            # seen at the next entry, before student code could undo it.
            for namespace, size, keys, ordered, getter, values, strict in _entries:
                if not _all(_map(_is, getter(namespace), values)):
                    _exit(_codes[0], _name(namespace, ordered, values))
                if _len(namespace) != size:
                    added = namespace.keys() - keys
                    if strict or not _builtins.isdisjoint(added):
                        _exit(_codes[0], "a new name " + ", ".join(sorted(map(str, added)))[:100])
        except KeyError:  # a name the grader relies on was deleted
            _exit(_codes[0], "a deleted name")
        except BaseException:  # noqa: BLE001 - the watchdog itself failing (memory, recursion limit)
            _exit(_codes[1])

    return watchdog


def _checkpoint(trusted) -> list[str]:
    """Everything student code may have changed that the verdict depends on. Runs with gc off, and never
    calls a method of a student object, so no student code runs while it looks."""
    gc.disable()
    sys.setrecursionlimit(_BASELINE["recursion limit"])
    snap = snapshot(trusted)
    _mark("snapshot")
    problems = changed(trusted, snap)
    _mark("changed")
    now = _torch_state()
    problems += [f"PyTorch's {name}" for name, value in _BASELINE["torch"].items() if now.get(name) != value]
    problems += [f"{name} (a tensor subclass or mode of your own)" for name in _untrusted_overrides()]
    return problems


def _harden_zygote() -> None:
    """Children of other zygotes (other graders on this machine) may not read our memory."""
    try:
        _LIBC.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except Exception:  # noqa: BLE001 - best effort
        pass


def zygote_main() -> None:
    global _ZYGOTE_FDS
    # Our channel is the original stdin/stdout; fds 0-2 then point elsewhere so stray prints can't corrupt it.
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)  # unbuffered: select() below sees all input
    channel_out = os.fdopen(os.dup(1), "wb")
    parent = os.getppid()
    _ZYGOTE_FDS = (channel_in.fileno(), channel_out.fileno())
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    _prepare()  # here, with the public globals: what it installs in libraries is reachable by student code
    _private_globals()["_serve"](channel_in, channel_out, parent)


def _private_globals() -> dict:
    """This module's functions re-made over a private copy of its globals, with a private copy of the
    builtins. Student code can import autograder.sandbox and rebind its names (or the builtins); the
    zygote and its children run from the copy, so that changes nothing the grader uses, while the checks
    see the rebinding as tampering. No function of the copy may reach student code (its __globals__, never
    audited, would hand the copy back): what student code can see comes from _PUBLIC."""
    public = globals()
    private = dict(public)
    private["__builtins__"] = dict(builtins.__dict__)
    for name, value in public.items():
        if type(value) is types.FunctionType and value.__globals__ is public:
            clone = types.FunctionType(value.__code__, private, value.__name__, value.__defaults__,
                                       value.__closure__)
            clone.__kwdefaults__ = value.__kwdefaults__
            clone.__qualname__ = value.__qualname__
            clone.__module__ = value.__module__
            private[name] = clone
    return private


_PUBLIC = globals()


def _serve(channel_in, channel_out, parent: int) -> None:
    global _CHANNEL_ROOT, _LIBC
    import ctypes

    _LIBC = ctypes.CDLL(None, use_errno=True)
    _LIBC.syscall.restype = ctypes.c_long
    _harden_zygote()
    _CHANNEL_ROOT = os.path.join(tempfile.gettempdir(), f"{CHANNEL_PREFIX}{os.getuid()}")
    os.makedirs(_CHANNEL_ROOT, mode=0o700, exist_ok=True)
    info = os.lstat(_CHANNEL_ROOT)
    if not (os.path.isdir(_CHANNEL_ROOT) and not os.path.islink(_CHANNEL_ROOT) and info.st_uid == os.getuid()):
        _CHANNEL_ROOT = tempfile.mkdtemp(prefix=CHANNEL_PREFIX)  # someone else's: never write tests there
    os.chmod(_CHANNEL_ROOT, 0o700)
    global _BASELINE
    _BASELINE = types.MappingProxyType({
        "torch": types.MappingProxyType(_torch_state()), "benign": types.MappingProxyType(_benign_torch_state()),
        "sys.path": tuple(sys.path), "recursion limit": sys.getrecursionlimit(),
        "int digits": sys.get_int_max_str_digits(), "warnings": tuple(__import__("warnings").filters)})
    trusted = types.MappingProxyType(snapshot())  # read-only: code that reached it could not edit it
    _send(channel_out, {"ready": True, "pid": os.getpid(), "landlock": _landlock_abi()})
    while True:
        # A grader killed while one of its forks still holds our stdin would leave us waiting forever:
        # leave when the process that started us is gone.
        while not select.select([channel_in], [], [], 0.5 if _UNREAPED else 5.0)[0]:
            _reap_finished()
            if os.getppid() != parent:
                return
        try:
            request = _recv(channel_in)
        except EOFError:
            return
        if request is None:
            return
        job = _job_from_wire(request)
        request.clear()  # the test source lives on in the child's memory only where we put it
        try:
            outcome = _run_forked(job, trusted)
        except Exception as error:  # noqa: BLE001 - the zygote must answer every request
            outcome = Outcome("error", f"the grader failed on this test ({type(error).__name__}: {error})",
                              "grader-error")
        _send(channel_out, asdict(outcome))


def _write_private(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def _run_forked(job: Job, trusted: dict) -> Outcome:
    start = time.monotonic()
    workdir = tempfile.mkdtemp(prefix=WORKDIR_PREFIX)
    channel = os.path.join(_CHANNEL_ROOT, secrets.token_hex(16))  # unpredictable, unlike mkdtemp's names
    os.mkdir(channel, 0o700)
    nonce = secrets.token_hex(16)
    _write_private(os.path.join(channel, "test"), job.test_source)
    job.test_source = ""  # the child reads it from the channel only after the answers ran
    _write_private(os.path.join(channel, "nonce"), nonce)
    os.mkfifo(os.path.join(channel, "out"), 0o600)
    # O_RDWR: opening never blocks, and the child's exit never looks like an end of file.
    result_fd = os.open(os.path.join(channel, "out"), os.O_RDWR | os.O_NONBLOCK)
    key = tuple(job.protected)
    if key not in _READ_ROOTS:
        temp = os.path.realpath(tempfile.gettempdir())
        libraries_in_temp = any(p.startswith(temp + os.sep) for p in _TRUSTED_PREFIXES if p.startswith(os.sep))
        _READ_ROOTS[key] = _readable_roots(list(job.protected) + ([] if libraries_in_temp else [temp]))
    read_roots = _READ_ROOTS[key]
    forked = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child
        try:
            _child(job, trusted, workdir, channel, read_roots, (result_fd, *_ZYGOTE_FDS))
        except BaseException:  # noqa: BLE001 - a failure before the channel exists: the zygote sees a death
            pass
        finally:
            os._exit(70)
    deadline = start + job.limits.seconds_per_test
    try:
        line, status = _await_result(pid, result_fd, deadline)
        if line is not None:
            outcome = _accept(line, nonce)
        elif status == "timeout":
            outcome = Outcome("timeout", "time limit exceeded while running your answer cells or the test: is "
                                         "there an infinite loop, or work far larger than the exercise needs?",
                              "timeout")
        else:
            outcome = _died(status, workdir)
    finally:
        os.close(result_fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        # The kernel takes ~20 ms to tear down a killed child's copy of the address space: let it, and
        # reap the child later rather than wait for it here.
        _UNREAPED.append(pid)
        _reap_finished()
        _rmtree(workdir)
        _rmtree(channel)
    outcome.seconds = round(time.monotonic() - start, 4)
    outcome.details["before_fork_seconds"] = round(forked - start, 4)
    outcome.details["child_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    outcome.details["zygote_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return outcome


def _await_result(pid: int, fd: int, deadline: float):
    """(line, None) for a complete line from the child; (None, "timeout") or (None, wait status)."""
    buffer = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None, "timeout"
        ready, _, _ = select.select([fd], [], [], min(remaining, 0.05))
        if ready:
            try:
                buffer += os.read(fd, 1 << 16)
            except BlockingIOError:
                pass
            if b"\n" in buffer:
                return buffer.split(b"\n", 1)[0], None
            if len(buffer) > 8_000_000:
                return b"", None
            continue
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, None
        if done:
            try:
                buffer += os.read(fd, 1 << 20)
            except BlockingIOError:
                pass
            if b"\n" in buffer:
                return buffer.split(b"\n", 1)[0], None
            return None, status


_TAMPERED_CHANNEL = ("the grader's channel was tampered with by code in your answer cells.", "channel-tampered")


def _accept(line: bytes, nonce: str) -> Outcome:
    try:
        message = json.loads(line)
        if type(message) is not dict or not secrets.compare_digest(str(message.get("nonce", "")), nonce):
            raise ValueError("wrong nonce")
        outcome = _outcome_from_wire(message.get("outcome"))
    except (ValueError, TypeError):
        return Outcome("error", *_TAMPERED_CHANNEL)
    output = message.get("output", "")
    outcome.output = output if type(output) is str else ""
    return outcome


def _died(status, workdir: str = "") -> Outcome:
    if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == _TAMPER_EXIT:
        what = ""
        try:
            with open(os.path.join(workdir, ".grader-watchdog"), "rb") as handle:
                what = handle.read(300).decode("utf-8", "replace")
        except OSError:
            pass
        what = "".join(c for c in what if c.isprintable())[:200]
        return Outcome("failed", "your code replaced objects the grader relies on, or changed PyTorch's modes, "
                                 f"while the test was running{f' ({what})' if what else ''}, even if it put "
                                 "them back afterwards. Tests do not run on a modified PyTorch, NumPy or "
                                 "Python; remove that code.", "tampering")
    if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == _WATCHDOG_EXIT:
        return Outcome("error", "the grader's integrity watchdog failed while your code ran (out of memory, "
                                "or a recursion limit too low?). Nothing was graded for this test.", "watchdog")
    if status is None:
        how = "ended"
    elif os.WIFSIGNALED(status):
        how = f"was killed by signal {os.WTERMSIG(status)}"
    else:
        how = f"exited with code {os.WEXITSTATUS(status)}"
    return Outcome("error", f"the process running your code {how} while running your answer cells or the "
                            "test (os._exit, sys.exit, a crash, or the memory limit). Nothing was graded for "
                            "this test.", "process-died", details={"exit": how})


_UNREAPED: list = []  # killed children the kernel is still tearing down


def _reap_finished() -> None:
    for pid in list(_UNREAPED):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _UNREAPED.remove(pid)


def _rmtree(path) -> None:
    import shutil

    if path:
        shutil.rmtree(path, ignore_errors=True)


# ------------------------------------------------------------------------------------------ the child

class _CappedText(io.TextIOBase):
    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def write(self, text):
        text = _plain(text) if isinstance(text, str) else _plain(str(text))
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        if len(text) > max(room, 0):
            self.truncated = True
        return len(text)

    def flush(self):
        pass

    def clear(self):
        self.parts.clear()
        self.size = 0
        self.truncated = False

    def value(self) -> str:
        out = "".join(self.parts)
        return out + ("\n[output truncated]" if self.truncated else "")


_MARKS: list = []  # (phase, perf_counter at its end) in the current child: where a test's time goes


def _mark(phase: str) -> None:
    _MARKS.append((phase, time.perf_counter()))


def _phases() -> dict:
    phases: dict = {}
    for (_, start), (name, end) in zip(_MARKS, _MARKS[1:]):
        phases[name] = round(phases.get(name, 0.0) + end - start, 4)
    return phases


def _child(job: Job, trusted: dict, workdir: str, channel: str, read_roots: list, inherited: tuple) -> None:
    _MARKS[:] = [("fork", time.perf_counter())]
    for fd in inherited:  # the zygote's channel to the grader and the result FIFO: never student code's
        try:
            os.close(fd)
        except OSError:
            pass
    os.setsid()  # own process group: nothing it starts outlives it
    os.chdir(workdir)
    os.environ["TMPDIR"] = workdir
    os.environ["HOME"] = workdir
    tempfile.tempdir = workdir
    _limit_resources(job.limits)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    _close_other_fds()
    _mark("child setup")
    isolation = {"landlock": _install_landlock(read_roots, [workdir, channel], [os.devnull])}
    _mark("landlock")
    isolation["seccomp"] = _install_seccomp()
    _mark("seccomp")
    out = _CappedText(job.limits.output_bytes)
    sys.stdout = sys.stderr = out
    import autograder.checks.common as common

    common.set_base_seed(job.seed)
    sys.path[:] = _BASELINE["sys.path"]
    gate = _install_audit_hook(job.protected, workdir, channel)
    _mark("audit hook")
    try:
        outcome, answers_output = _grade(job, trusted, gate, channel, out)
    except BaseException as error:  # noqa: BLE001 - the grader's own failure, reported as such
        outcome = Outcome("error", f"the grader failed on this test ({_type_name(type(error))}); "
                                   "tell your instructor.", "grader-error",
                          details={"traceback": _format_traceback(error)[-1500:]})
        answers_output = ""
    outcome.details["isolation"] = isolation
    outcome.details["phases"] = _phases()
    _finish(gate, channel, outcome, answers_output)


def _grade(job: Job, trusted: dict, gate, channel: str, out: _CappedText):
    namespace = {"__name__": "__main__", "__builtins__": builtins.__dict__, "get_ipython": _PUBLIC["_no_ipython"]}
    setup_names: dict = {}
    touched: set = set()
    failure = None
    # Every cell is compiled before any runs: answer code could otherwise replace the IPython transformer
    # that turns later cells (the setup's, the test's) into Python.
    compiled = [(label, _compile_cell(source, f"{STUDENT_FILE_PREFIX}:{label}>" if label.startswith("answer")
                                      else f"<{label}>", label)) for label, source in job.cells]
    for label, code in compiled:
        is_answer = label.startswith("answer")
        before = dict(namespace) if is_answer else None
        failure = _run_cell(code, "", namespace, label)
        if not is_answer:
            setup_names.update((k, v) for k, v in namespace.items() if k not in touched)
            if failure is not None:
                break  # a broken setup cell is the course's fault and is reported as such
            continue
        touched.update(k for k, v in namespace.items() if k not in before or before[k] is not v)
        if failure is not None:
            failure.feedback = f"your answer cell `{label}` raised an error: {failure.feedback}"
            # keep going: one broken answer cell must not sink the tests of the others
    answers_output = out.value()[-4000:]
    _mark("cells")
    tampered = _checkpoint(trusted)
    _mark("integrity after cells")
    if tampered:
        return _tamper(tampered), answers_output
    gc.enable()
    _restore_interpreter_settings()
    # The test sees the setup's names and the real builtins, whatever the answer cells rebound.
    test_namespace = dict(namespace)
    test_namespace.update(setup_names)
    test_namespace.update({"__name__": "__main__", "__builtins__": builtins.__dict__,
                           "get_ipython": _PUBLIC["_no_ipython"]})
    gate(True)
    try:
        source = _read_private(os.path.join(channel, "test"))
    finally:
        gate(False)
    test = _compile_cell(source, f"<test:{job.test_id}>", job.test_id, ipython=False)  # tests are plain Python
    del source  # from here on no frame of ours holds the test's text (only its code object)
    out.clear()
    mode = job.limits.watchdog
    answers = [source for label, source in job.cells if label.startswith("answer")]
    watchdog = _PUBLIC["_make_watchdog"]() if mode == "always" or (mode == "auto" and _needs_watchdog(answers)) else None
    _mark("test setup")
    check_start = time.perf_counter()
    sys.setprofile(watchdog)
    outcome = _run_cell(test, "", test_namespace, job.test_id, is_test=True)
    sys.setprofile(None)
    check_seconds = time.perf_counter() - check_start
    if outcome is None:
        outcome = Outcome("passed")
    if failure is not None and outcome.status != "passed" and outcome.mistake in ("not-defined", "name-error"):
        outcome = failure  # the real cause: the answer cell that failed to define the name
    sys.setprofile(None)
    _mark("test")
    tampered = _checkpoint(trusted)  # leaves gc off: from here on no student code can run
    _mark("integrity after test")
    if tampered:
        outcome = _tamper(tampered)
    outcome.details["check_seconds"] = round(check_seconds, 4)
    return outcome, answers_output


def _finish(gate, channel: str, outcome: Outcome, answers_output: str) -> None:
    """Report through the channel and exit. Student code cannot run any more: gc is off, no signal handler
    or thread of theirs exists, and nothing here calls a method of one of their objects."""
    gc.disable()
    message = {"outcome": _plain_json({
        "status": outcome.status if outcome.status in STATUSES else "error",
        "feedback": _plain(outcome.feedback), "mistake": _plain(outcome.mistake),
        "details": outcome.details if type(outcome.details) is dict else {}}),
        "output": _plain(answers_output)}
    gate(True)
    nonce = _read_private(os.path.join(channel, "nonce"))
    fd = os.open(os.path.join(channel, "out"), os.O_WRONLY)
    gate(False)
    message["nonce"] = nonce
    data = (json.dumps(message) + "\n").encode("utf-8")
    while data:
        data = data[os.write(fd, data):]
    os._exit(0)  # skip interpreter teardown: no atexit handler or finaliser of student code runs


def _read_private(path: str) -> str:
    fd = os.open(path, os.O_RDONLY)
    try:
        parts = []
        while chunk := os.read(fd, 1 << 16):
            parts.append(chunk)
    finally:
        os.close(fd)
    return b"".join(parts).decode("utf-8")


def _close_other_fds() -> None:
    """Nothing inherited stays open (a pipe to another process would be a channel student code could use)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2:
            try:
                kind = os.fstat(fd).st_mode
            except OSError:
                continue
            if not (kind & 0o170000) in (0o010000, 0o140000):  # keep all but FIFOs/pipes and sockets
                continue
            try:
                os.close(fd)
            except OSError:
                pass


def _tamper(names: list[str]) -> Outcome:
    shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
    return Outcome("failed", f"your code replaced or removed objects the grader relies on ({shown}). "
                             "Tests do not run on a modified PyTorch, NumPy or Python; remove that code.",
                   "tampering", details={"changed": names[:50]})


def _no_ipython():
    class _Shell:
        def run_line_magic(self, *args, **kwargs):
            return None

        run_cell_magic = system = run_line_magic

        def __getattr__(self, name):
            raise AttributeError(f"get_ipython().{name} is not available while grading")

        def __setattr__(self, name, value):
            raise AttributeError(f"get_ipython().{name} is not available while grading")

    return _Shell()


def _transform(source: str) -> str:
    """IPython syntax (magics, `!cmd`) to plain Python, so a stray `%matplotlib inline` is harmless."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def _compile_cell(source: str, filename: str, label: str, ipython: bool = True):
    """The cell's code object, or an Outcome if it does not compile."""
    try:
        return compile(_transform(source) if ipython else source, filename, "exec")
    except SyntaxError as error:
        return Outcome("error", f"syntax error in {label}, line {_plain_int(error.lineno)}: {_plain(error.msg)}",
                       "syntax-error")


def _run_cell(source, filename: str, namespace: dict, label: str, is_test: bool = False) -> Outcome | None:
    """Run a cell (its source, or a code object from _compile_cell) in `namespace`; None if it ran."""
    from autograder.checks.common import Mistake

    if type(source) is Outcome:  # a test that did not compile (the course's fault)
        return source
    try:
        code = source if type(source) is types.CodeType else compile(_transform(source), filename, "exec")
        exec(code, namespace)
    except BaseException as error:  # noqa: BLE001 - every student failure is a result, not a crash
        try:
            return _describe(error, label, is_test, Mistake)
        except BaseException:  # noqa: BLE001 - an exception whose description itself raises
            return Outcome("error", f"your code raised {_type_name(type(error))}, which could not even be "
                                    "described (its message raised an error).", "exception",
                           details={"exception": _type_name(type(error))})
    return None


def _describe(error: BaseException, label: str, is_test: bool, Mistake) -> Outcome:
    kind = type(error)  # the real class: issubclass on it runs no student code (unlike isinstance)
    if issubclass(kind, Mistake):
        return Outcome("failed", _plain(error.message, "a check failed"), _plain(error.code, "mistake"))
    if issubclass(kind, AssertionError):
        return Outcome("failed", _safe_str(error) or "a check failed", "assertion")
    if issubclass(kind, NotImplementedError):
        return Outcome("failed" if is_test else "error",
                       "not implemented yet (the code still raises NotImplementedError).", "not-implemented")
    if issubclass(kind, MemoryError):
        return Outcome("error", "ran out of memory: the grading limit was exceeded.", "memory-limit")
    if issubclass(kind, NameError):
        return Outcome("error", f"{_safe_str(error)}: define it in its answer cell (and keep the name exactly).",
                       "name-error")
    if issubclass(kind, SyntaxError):
        return Outcome("error", f"syntax error in {label}, line {_plain_int(error.lineno)}: "
                                f"{_plain(error.msg)}", "syntax-error")
    if issubclass(kind, PermissionError):
        return Outcome("error", _safe_str(error), "sandbox-denied")
    if issubclass(kind, SystemExit):
        return Outcome("error", "the code called exit(); nothing was graded after it.", "exit")
    text = _safe_str(error)
    if "can't allocate memory" in text or "DefaultCPUAllocator" in text:
        return Outcome("error", "ran out of memory: the grading limit was exceeded.", "memory-limit")
    where = _student_frame(error)
    first = text.splitlines()[0][:500] if text else ""
    return Outcome("error", f"{_type_name(kind)}: {first}{where}", "exception",
                   details={"exception": _type_name(kind)})


def _safe_str(error) -> str:
    try:
        return _plain(str(error))
    except BaseException:  # noqa: BLE001
        return ""


def _plain_int(value) -> int:
    return value if type(value) is int else 0


def _format_traceback(error: BaseException) -> str:
    """file:line of each frame, without the traceback module (which the audit hook refuses frames)."""
    lines = [f"{_type_name(type(error))}: {_safe_str(error)[:300]}"]
    try:
        tb = _EXC_TRACEBACK(error)
        while type(tb) is types.TracebackType:
            lines.append(f"  {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name}")
            tb = tb.tb_next
    except Exception:  # noqa: BLE001
        pass
    return "\n".join(lines)


def _student_frame(error: BaseException) -> str:
    """Where in the answer cells the exception came from (the last answer-cell line of its traceback)."""
    try:
        tb, last = _EXC_TRACEBACK(error), None
        while type(tb) is types.TracebackType:
            filename = tb.tb_frame.f_code.co_filename
            if filename.startswith(STUDENT_FILE_PREFIX):
                last = (filename, tb.tb_lineno)
            tb = tb.tb_next
    except Exception:  # noqa: BLE001
        return ""
    if last is None:
        return ""
    return f" (in {last[0].strip('<>').split(':', 1)[-1]}, line {_plain_int(last[1])})"


def _limit_resources(limits: Limits) -> None:
    current = _vm_size()
    memory = current + limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails instead of killing us


def _vm_size() -> int:
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


# ------------------------------------------------------------------------------- kernel confinement

def _readable_roots(denied: list) -> list[str]:
    """Folders and files to grant read access to: everything except the denied trees (and their ancestors,
    which are split into their other children)."""
    denied = [os.path.realpath(p) for p in denied]

    def inside(path: str, folder: str) -> bool:
        return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)

    roots: list[str] = []

    def visit(directory: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            real = os.path.realpath(os.path.join(directory, entry.name))
            if any(inside(real, d) for d in denied):
                continue
            if any(inside(d, real) for d in denied):
                if depth < 12 and os.path.isdir(real):
                    visit(real, depth + 1)
                continue
            roots.append(real)

    visit("/", 0)
    return sorted(set(roots))


def _landlock_abi() -> int:
    try:
        abi = _LIBC.syscall(444, None, 0, 1)  # landlock_create_ruleset(NULL, 0, VERSION)
    except Exception:  # noqa: BLE001
        return 0
    return max(int(abi), 0)


def _install_landlock(read_roots: list, rw_dirs: list, rw_files: list) -> int:
    """Kernel-enforced file rules (Linux >= 5.13 with Landlock enabled): read everywhere but the denied
    trees, write only in our folders; also no TCP (ABI >= 4) and no signals out of the sandbox (>= 6).
    Returns the ABI version enforced, 0 if unavailable."""
    import ctypes

    abi = _landlock_abi()
    if abi < 1:
        return 0
    execute, write_file, read_file, read_dir = 1 << 0, 1 << 1, 1 << 2, 1 << 3
    handled = (1 << 13) - 1
    if abi >= 2:
        handled |= 1 << 13          # REFER
    if abi >= 3:
        handled |= 1 << 14          # TRUNCATE
    file_rights = execute | write_file | read_file | (1 << 14 if abi >= 3 else 0)
    net = 0b11 if abi >= 4 else 0   # BIND_TCP | CONNECT_TCP, with no rule: none allowed
    scoped = 0b11 if abi >= 6 else 0  # abstract unix sockets and signals stay inside the sandbox
    attr = struct.pack("=QQQ", handled, net, scoped)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    buffer = ctypes.create_string_buffer(attr[:size], size)
    ruleset = _LIBC.syscall(444, buffer, ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return 0
    try:
        def allow(path: str, access: int) -> None:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                return
            try:
                if not os.path.isdir(path):
                    access &= file_rights
                rule = ctypes.create_string_buffer(struct.pack("=Qi", access & handled, fd), 12)
                _LIBC.syscall(445, ruleset, 1, rule, 0)  # LANDLOCK_RULE_PATH_BENEATH
            finally:
                os.close(fd)

        for path in read_roots:
            allow(path, execute | read_file | read_dir)
        for path in rw_dirs:
            allow(path, handled)
        for path in rw_files:
            allow(path, read_file | write_file | (1 << 14 if abi >= 3 else 0))
        if _LIBC.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            return 0
        if _LIBC.syscall(446, ruleset, 0) != 0:  # landlock_restrict_self
            return 0
    finally:
        os.close(ruleset)
    return abi


_AUDIT_ARCH_X86_64 = 0xC000003E
# x86_64 system calls no grading process needs: new programs, debugging other processes, kernel and
# mount manipulation, opening files by handle, io_uring (which would bypass seccomp on file access).
_DENIED_SYSCALLS = [57, 58, 59, 322,  # fork vfork execve execveat
                    101, 310, 311, 312, 440,  # ptrace process_vm_readv/writev kcmp process_madvise
                    165, 166, 155, 161, 272, 308, 428, 429, 430, 431, 432, 433, 442,  # mounts, namespaces
                    246, 320, 175, 313, 176, 169, 167, 168, 163, 103, 172, 173,  # kernel, reboot, io ports
                    321, 298, 323, 250, 248, 249,  # bpf perf_event_open userfaultfd keyrings
                    303, 304, 133, 259,  # name_to_handle_at open_by_handle_at mknod mknodat
                    424, 434, 438, 425, 426, 427, 300]  # pidfd_*, io_uring_*, fanotify_init


def _seccomp_program(pid: int) -> list:
    LD, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06
    ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    program: list = []  # (code, jt, jf, k) with jt/jf as labels (str) or 0

    def op(code, k=0, jt=0, jf=0):
        program.append([code, jt, jf, k])

    def label(name):
        program.append(name)

    op(LD, 4)                                      # arch
    op(JEQ, _AUDIT_ARCH_X86_64, 0, "allow")
    op(LD, 0)                                      # syscall number
    op(JGE, 0x40000000, "deny", 0)                 # the x32 ABI: not for us
    for number in _DENIED_SYSCALLS:
        op(JEQ, number, "deny", 0)
    op(JEQ, 56, "clone", 0)
    op(JEQ, 435, "enosys", 0)                      # clone3: let libc fall back to clone, refused below
    op(JEQ, 62, "kill", 0)
    op(JEQ, 200, "own_pid", 0)                     # tkill
    op(JEQ, 234, "own_pid", 0)                     # tgkill
    op(JEQ, 129, "own_pid", 0)                     # rt_sigqueueinfo
    op(JEQ, 297, "own_pid", 0)                     # rt_tgsigqueueinfo
    op(JEQ, 13, "sigaction", 0)
    op(JEQ, 41, "socket", 0)
    op(RET, ALLOW)
    label("clone")                                 # no processes, and no threads either: a thread of
    op(RET, EPERM)                                 # student code could run while the grader reports
    label("kill")
    op(LD, 16)
    op(JEQ, 0, "allow", 0)                         # our own process group (setsid: just us)
    label("own_pid")
    op(LD, 16)
    op(JEQ, pid, "allow", "deny")
    label("sigaction")
    op(LD, 24)                                     # the new action (low and high halves): NULL = a query
    op(JEQ, 0, 0, "deny")
    op(LD, 28)
    op(JEQ, 0, "allow", "deny")
    label("socket")
    op(LD, 16)
    op(JEQ, 1, "allow", "deny")                    # AF_UNIX only
    label("allow")
    op(RET, ALLOW)
    label("deny")
    op(RET, EPERM)
    label("enosys")
    op(RET, ENOSYS)

    positions, index = {}, 0
    for item in program:
        if isinstance(item, str):
            positions[item] = index
        else:
            index += 1
    out, index = [], 0
    for item in program:
        if isinstance(item, str):
            continue
        code, jt, jf, k = item
        jt = positions[jt] - index - 1 if isinstance(jt, str) else jt
        jf = positions[jf] - index - 1 if isinstance(jf, str) else jf
        out.append((code, jt, jf, k))
        index += 1
    return out


def _install_seccomp() -> bool:
    import ctypes

    if os.uname().machine != "x86_64" or _LIBC is None:
        return False
    program = _seccomp_program(os.getpid())
    raw = b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in program)
    filters = ctypes.create_string_buffer(raw, len(raw))
    fprog = ctypes.create_string_buffer(struct.pack("=HxxxxxxQ", len(program), ctypes.addressof(filters)), 16)
    if _LIBC.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return False
    return _LIBC.prctl(22, 2, fprog, 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER


# --------------------------------------------------------------------------------------- audit hook

# Events student code may never cause: new processes, network, native memory access, introspection of
# other objects (where the grader's state lives), links (which would let a path mean two things).
_DENIED = frozenset({
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "os.kill", "os.killpg", "signal.pthread_kill", "pty.spawn", "socket.connect", "socket.bind",
    "socket.getaddrinfo", "socket.sendto", "ctypes.dlopen", "ctypes.dlsym", "ctypes.addressof",
    "ctypes.string_at", "ctypes.wstring_at", "ctypes.cdata", "ctypes.call_function", "ctypes.PyObj_FromPtr",
    "ctypes.cdata/buffer", "ctypes.create_string_buffer", "ctypes.create_unicode_buffer",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys.settrace",
    "sys.setprofile", "sys._current_exceptions", "_thread.start_new_thread", "os.chroot", "os.setuid",
    "mmap.__new__", "winreg.OpenKey", "sys.addaudithook", "os.link", "os.symlink", "os.fchdir",
    "sys.monitoring.register_callback", "os.startfile",
})
_FRAME_EVENTS = frozenset({"sys._getframe", "sys._getframemodulename"})
_FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "f_locals", "f_globals",
                          "__globals__", "__closure__"})
_READ_EVENTS = frozenset({"os.listdir", "os.scandir", "os.getxattr", "os.listxattr"})
_CHANGE_EVENTS = frozenset({"os.remove", "os.rename", "os.rmdir", "os.chmod", "os.mkdir", "os.utime", "os.chown",
                  "os.truncate", "os.setxattr", "os.removexattr", "os.chflags", "os.lchflags",
                  "shutil.rmtree", "shutil.copyfile", "shutil.copymode", "shutil.copystat",
                  "shutil.copytree", "shutil.move", "shutil.chown", "shutil.unpack_archive",
                  "shutil.make_archive"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _install_audit_hook(protected: list, workdir: str, channel: str):
    """Install the hook; return the gate that lets this module's own code (and only it, with no student
    frame on the stack) open the channel folder for a moment."""
    temp_root = os.path.dirname(os.path.realpath(workdir))
    own_file = _read_private.__code__.co_filename
    protected = [os.path.realpath(p) for p in protected]
    workdir = os.path.realpath(workdir)
    channel = os.path.realpath(channel)
    torch_dir = os.path.dirname(os.path.realpath(sys.modules["torch"].__file__)) + os.sep
    code_makers = (torch_dir + "_dynamo" + os.sep, torch_dir + "fx" + os.sep)
    grader_dir = os.path.dirname(_THIS_FILE) + os.sep
    own_pid = str(os.getpid())
    import importlib._bootstrap_external as external

    loaders = (external.SourceFileLoader, external.SourcelessFileLoader)
    state = {"busy": False, "gate": False}
    safe_introspectors = {(os.path.realpath(path), name) for path, name in _safe_introspectors()}
    import logging

    # Helpers whose job is to return a frame: they serve only library code that calls them by this name.
    frame_helpers = {(os.path.realpath(logging.__file__), "<lambda>"): "currentframe"}
    # Functions of frame-reading modules that return text or locations only (FrameSummary, no locals).
    string_sites = {(os.path.realpath(_STDLIB + "traceback.py"), name)
                    for name in ("format_stack", "extract_stack", "print_stack")}
    # Tracebacks run upwards from where they were caught: their frames are the catcher's or above it.
    downward_walkers = {(os.path.realpath(_STDLIB + "traceback.py"), "walk_stack")}
    real_files: dict = {}

    def real(filename: str) -> str:
        if filename not in real_files:
            real_files[filename] = os.path.realpath(filename)
        return real_files[filename]

    def frame_request_allowed(frame, name: str, returned) -> bool:
        """May the code running in `frame` obtain a frame (sys._getframe, tb_frame, gi_frame)?
        A frame in student hands is the whole stack (f_back, f_globals), so frames go only to library
        code that asks for them itself (not a C iterator or weakref callback running a callable the
        student built), frame-returning helpers (inspect, traceback.walk_*, logging.currentframe) only
        serve library code that calls them by name and was itself called by library code, and with student
        code on the stack a library function the student called directly gets one only if it reads no more
        than a module name or a location, and never a frame below the student's own."""
        code = frame.f_code
        filename = code.co_filename
        if filename == own_file:
            return True
        if not filename.startswith(_TRUSTED_PREFIXES) or name not in code.co_names:
            return False
        site = (real(filename), code.co_name)
        caller = frame.f_back
        caller_trusted = caller is not None and caller.f_code.co_filename.startswith(_TRUSTED_PREFIXES)
        helper = site in frame_helpers or (filename.startswith(_FRAME_LEAKERS) and site not in string_sites)
        if helper:
            if not caller_trusted:
                return False
            if code.co_flags & 0x20:  # a generator (traceback.walk_tb): consumed by its own module only
                if caller.f_code.co_filename != filename:
                    return False
            elif frame_helpers.get(site, code.co_name) not in caller.f_code.co_names:
                return False
        bottom, walker = None, frame
        while walker is not None and walker.f_code is not _STACK_ROOT:
            if not walker.f_code.co_filename.startswith(_TRUSTED_PREFIXES):
                bottom = walker
            walker = walker.f_back
        if bottom is None:
            return True
        if helper:
            if site in downward_walkers:
                return False  # traceback.walk_stack(None): walks past the student's frames by design
            # The frame goes to library code; that code must not have been called by the student itself.
            grand = caller.f_back
            if grand is not None and not grand.f_code.co_filename.startswith(_TRUSTED_PREFIXES) \
                    and (real(caller.f_code.co_filename), caller.f_code.co_name) not in safe_introspectors:
                return False
        elif not caller_trusted and site not in safe_introspectors and site not in string_sites:
            return False
        if type(returned) is types.FrameType:
            walker = frame
            while walker is not None:
                if walker is returned:
                    return True
                if walker is bottom:
                    return False
                walker = walker.f_back
            return False
        return True

    def gate(open_: bool) -> None:
        state["gate"] = bool(open_)

    def inside(real: str, folder: str) -> bool:
        return real == folder or real.startswith(folder + os.sep)

    def denied(what: str) -> PermissionError:
        return PermissionError(f"not allowed while grading: {what}")

    def check_path(path, writing: bool, frame, opening: bool = False) -> None:
        name = _path_text(path)
        if name is None:
            return
        if not os.path.isabs(name) and ".." in name.split(os.sep):
            raise denied(f"the relative path {name!r} (paths may not climb out of the working folder)")
        real = os.path.realpath(name)
        if inside(real, channel):
            if state["gate"] and _legit_channel_stack(frame):
                return
            raise denied(f"opening {name} (the grader's channel)")
        if any(inside(real, p) for p in protected):
            raise denied(f"reading {name} (instructor files and the gradebook are off limits)")
        if inside(real, temp_root) and real != temp_root and not inside(real, workdir):
            first = real[len(temp_root) + 1:].split(os.sep, 1)[0]
            if first.startswith((CHANNEL_PREFIX, WORKDIR_PREFIX)):
                raise denied(f"opening {name} (another test's files)")
        if real.startswith("/proc/"):
            parts = real.split(os.sep)
            if len(parts) > 2 and parts[2].isdigit() and parts[2] != own_pid:
                raise denied(f"reading {name} (other processes)")
            if "mem" in parts[3:]:
                raise denied(f"reading {name} (process memory)")
        if writing and not (inside(real, workdir) or real == os.devnull):
            raise denied(f"writing {name} (only the temporary folder is writable)")
        if opening and os.path.isdir(real) and not inside(real, workdir):
            raise denied(f"opening the folder {name} as a file (list it with os.listdir instead)")

    def hook(event, args):
        # The two commonest events, and harmless ones: answered first (the integrity check alone raises
        # thousands of them per test).
        if event == "builtins.id" or (event == "object.__getattr__" and len(args) > 1
                                      and args[1] not in _FRAME_ATTRS):
            return
        if state["busy"]:
            return
        state["busy"] = True
        try:
            if event == "open":
                path, mode, flags = (tuple(args) + (None, None, 0))[:3]
                writing = (type(mode) is str and any(c in mode for c in "wax+")) or \
                          (type(flags) is int and bool(flags & _WRITE_FLAGS))
                check_path(path, writing, sys._getframe(1), opening=True)
            elif event in _READ_EVENTS or event in _CHANGE_EVENTS:
                changing = event in _CHANGE_EVENTS
                for arg in args:
                    name = _path_text(arg)
                    if name is not None:
                        check_path(name, False, sys._getframe(1))
                        if changing and not event.startswith("shutil.copy") and event != "shutil.make_archive":
                            real = os.path.realpath(name)
                            if not inside(real, workdir):
                                raise denied(f"{event} outside the temporary folder")
            elif event == "os.chdir":
                name = _path_text(args[0] if args else None)
                if name is None or not inside(os.path.realpath(name), workdir):
                    raise denied("leaving the temporary folder with os.chdir")
            elif event == "sys.setprofile" and _legit_grader_stack(sys._getframe(1), (_grade.__code__,)):
                return  # the watchdog, switched on and off by the grader itself
            elif event == "ctypes.cdata" and sys._getframe(1).f_code is _DICT_TAG_CODE:
                return  # the integrity check reading a dict's version tag (see _dict_tag)
            elif event in _DENIED or event.startswith(("os.exec", "os.spawn", "os.posix_spawn")):
                raise denied(event)
            elif event in _FRAME_EVENTS or (event == "object.__getattr__" and len(args) > 1
                                             and args[1] in _FRAME_ATTRS):
                if event in _FRAME_EVENTS:
                    name, returned = event.rpartition(".")[2], (args[0] if args else None)
                else:
                    name, returned = args[1], getattr(args[0], args[1], None)
                frame = sys._getframe(1)
                if not frame_request_allowed(frame, name, returned):
                    where = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}"
                    raise denied(f"inspecting the grader's frames ({name} in {where})")
            elif event == "object.__setattr__" and len(args) > 2 and args[1] in ("__code__", "__defaults__",
                                                                                   "__kwdefaults__"):
                target = args[0]
                frame = sys._getframe(1)
                if type(target) is types.FunctionType and _untrusted_on_stack(frame):
                    # Student code may rebind nothing but its own functions' defaults; libraries (dynamo,
                    # networkx's argmap) may rewrite their own functions, never the grader's.
                    caller_is_student = not _is_trusted_file(frame.f_code.co_filename)
                    target_file = target.__code__.co_filename
                    if (caller_is_student and (args[1] == "__code__" or _is_trusted_file(target_file))) \
                            or target_file.startswith(grader_dir):
                        raise denied(f"replacing the {args[1]} of a function (in "
                                     f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name})")
            elif event == "compile":
                source, filename = (tuple(args) + (None, None))[:2]
                name = _path_name(filename)
                if name is not None and _is_trusted_file(name) and _untrusted_on_stack(sys._getframe(1)):
                    if not _same_as_file(source, name):
                        raise denied("compiling code under the name of a library or grader file")
            elif event == "code.__new__":
                name = _path_name(args[1] if len(args) > 1 else None)
                frame = sys._getframe(1)
                if name is not None and _is_trusted_file(name) and _untrusted_on_stack(frame) \
                        and not frame.f_code.co_filename.startswith(code_makers):
                    raise denied("making code objects under the name of a library or grader file")
            elif event == "function.__new__":
                code = args[0] if args else None
                frame = sys._getframe(1)
                if type(code) is types.CodeType and _is_trusted_file(code.co_filename) \
                        and _untrusted_on_stack(frame) and not frame.f_code.co_filename.startswith(code_makers):
                    raise denied("making functions from the code of a library or the grader")
            elif event in ("marshal.loads", "marshal.load"):
                frame = sys._getframe(1)
                if _untrusted_on_stack(frame) and not _loading_library_bytecode(frame, loaders):
                    raise denied("loading code objects with marshal")
        finally:
            state["busy"] = False

    sys.addaudithook(hook)
    return gate


_STACK_ROOT = _child.__code__


def _legit_channel_stack(frame) -> bool:
    """Only the grader's own call sites open the channel: _read_private from _grade or _finish, from
    _child, from _run_forked, from _serve, from zygote_main at the bottom of the stack. A callable run on
    the student's behalf (weakref.finalize, a C iterator, ...) sits on a different stack and is refused."""
    if frame.f_code is _read_private.__code__:
        frame = frame.f_back
    return _legit_grader_stack(frame, (_grade.__code__, _finish.__code__))


def _legit_grader_stack(frame, callers: tuple) -> bool:
    """`frame` runs one of `callers`, called by _child, _run_forked, _serve, zygote_main at the bottom."""
    if frame is None or frame.f_code not in callers:
        return False
    for code in (_child.__code__, _run_forked.__code__, _serve.__code__, zygote_main.__code__):
        frame = frame.f_back
        if frame is None or frame.f_code is not code:
            return False
    bottom = frame.f_back
    return bottom is not None and bottom.f_back is None


def _safe_introspectors() -> list:
    """Library functions students call directly that look at their caller's frame only for its module
    name or source location, and never hand the frame back."""
    import collections
    import enum
    import typing

    torch_dir = os.path.dirname(sys.modules["torch"].__file__)
    out = [(collections.__file__, "namedtuple"), (typing.__file__, "_caller"), (enum.__file__, "_create_"),
           (os.path.join(torch_dir, "library.py"), "__init__"),
           (os.path.join(torch_dir, "library.py"), "_register_fake"),
           (os.path.join(torch_dir, "_library", "utils.py"), "get_source"),
           (os.path.join(torch_dir, "_custom_op", "impl.py"), "_register_impl")]
    extensions = sys.modules.get("typing_extensions")
    if extensions is not None:
        out.append((extensions.__file__, "_caller"))
    return out


def _path_name(filename):
    try:
        return _path_text(filename)
    except PermissionError:
        return None


def _same_as_file(source, filename: str) -> bool:
    """Lazy imports compile library files while student code is on the stack: fine if it really is the
    file's text."""
    if type(source) not in (bytes, str) or not os.path.isfile(filename):  # exact types: no code of theirs
        return False
    try:
        with open(filename, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    return data == (source if type(source) is bytes else source.encode("utf-8"))


def _loading_library_bytecode(frame, loaders) -> bool:
    """marshal.loads called by importlib's own loader, on the cached bytecode of a library file."""
    if frame.f_code.co_name != "_compile_bytecode" or not frame.f_code.co_filename.startswith("<frozen importlib"):
        return False
    caller = frame.f_back
    if caller is None or caller.f_code.co_name != "get_code" \
            or not caller.f_code.co_filename.startswith("<frozen importlib"):
        return False
    loader = caller.f_locals.get("self")
    if type(loader) not in loaders:
        return False
    path = getattr(loader, "path", None)
    return _is_trusted_file(path)


# ------------------------------------------------------------------------------------ parent's handle

class Sandbox:
    """A zygote process and the channel to it. Use one per worker thread; `run` is not re-entrant."""

    def __init__(self, protected: list | None = None):
        self.protected = [str(p) for p in (protected or [])]
        self.process = None
        self.jobs_run = 0
        self.landlock = 0

    def start(self) -> "Sandbox":
        # The zygote must import this very package (not another install of it): its checks and its
        # idea of what is protected have to match the grader's.
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        python_path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MPLBACKEND="Agg",
                   PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=python_path)
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from autograder.sandbox import zygote_main; zygote_main()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
        try:
            hello = _recv(self.process.stdout)
        except (EOFError, ValueError):
            hello = {}
        if type(hello) is not dict or not hello.get("ready"):
            raise RuntimeError("the grading sandbox failed to start")
        self.landlock = int(hello.get("landlock", 0) or 0)
        return self

    def run(self, job: Job) -> Outcome:
        if self.process is None or self.process.poll() is not None:
            self.start()
        job.protected = list(job.protected) + self.protected
        try:
            _send(self.process.stdin, _job_to_wire(job))
            outcome = _outcome_from_wire(_recv(self.process.stdout))
        except (EOFError, BrokenPipeError, OSError, ValueError, TypeError):
            # The zygote itself died (it never runs student code, so this is a machine problem such as
            # the OOM killer) or answered nonsense. Restart it for the next job; report this one as an error.
            self.close()
            return Outcome("error", "the grading process died while running this test; it was restarted.",
                           "grader-died")
        self.jobs_run += 1
        return outcome

    def close(self) -> None:
        if self.process is not None:
            # The zygote holds nothing worth a clean exit (tearing down torch takes seconds): kill it.
            self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                stream.close()
            self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
