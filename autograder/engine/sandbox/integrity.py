"""One cheap integrity checkpoint in the learner's process, before every reply: the Python-level namespaces
of PyTorch, NumPy, the builtins, the checks and the sandbox (this module too) still hold the objects they held
before any learner code ran, the registries the learner's process acts on hold the same entries, and what the
grader's functions captured is unchanged. Their code and defaults cannot change at all: an audit hook refuses
it. The record is held by `changed` itself and the serving loop holds `changed`, so no rebinding reaches them.

It guards what the judge cannot see for itself: a learner's Function observed through a patched autograd
(`BackwardCFunction.apply` doubling gradients), and the probes' facts. It does not pretend to stop code that
rewrites memory (docs/threat-model.md): values and gradients never rest on it, since the judge computes them.

Cheap because CPython 3.11 bumps a dict's version tag on every change to it: a namespace whose tag has not
moved is not compared name by name (without reading the tag, each check touched 4,500 objects: 1.3 ms per
reply, 13 ms for a fresh copy's first reply, whose pages the reads copied)."""

from __future__ import annotations

import ctypes
import gc
import sys
import types

from autograder import paths

_CHECKS_COMMON = paths.CHECKS_COMMON  # the course's addresses, read once at import (before any answer runs)
_WATCHED = ("builtins", "torch", "torch.autograd", "torch.autograd.function", "torch.autograd.graph",
            "torch.autograd.gradcheck", "torch.nn", "torch.nn.functional", "torch.func", "torch.library",
            "torch.utils.checkpoint", "numpy", "numpy.testing", "inspect", "functools", "types",
            "os", "json", "json.encoder", "json.decoder", "socket", "struct", "select",  # what replies go through
            paths.CHECKS, paths.CHECKS_COMMON, "autograder.engine.sandbox", "autograder.engine.shared",
            # what the probes of notebooks 11 and 16 run through below torch.library: torch.library.opcheck looks
            # optests.opcheck up at every call, custom operators and fake tensors are these modules' functions
            *(f"torch.testing._internal.optests{part}" for part in (
                "", ".generate_tests", ".fake_tensor", ".autograd_registration", ".aot_autograd", ".make_fx")),
            "torch._library.custom_ops", "torch._library.autograd", "torch._library.fake_impl",
            "torch._library.utils", "torch._subclasses.fake_tensor", "torch._ops")
# PyTorch's own modules whose functions (module-level, and their classes' methods) keep the code and defaults they
# had: a probe runs them in the learner's process, and a function body swapped (`__code__`) changes no name the
# namespaces above show. The audit hook refuses the change, as it does for the grader's own functions.
_LIBRARIES = ("torch.library", "torch._library.", "torch.testing._internal.optests", "torch._subclasses.",
              "torch._ops", "torch.autograd.", "torch.autograd")
_OWN = (paths.CHECKS + ".", "autograder.engine.sandbox.")  # every module of the checks and of the sandbox, this one too
_CLASSES = ("torch.Tensor", "torch._C.TensorBase", "torch.autograd.Function",
            "torch.autograd.function.BackwardCFunction", "torch.autograd.function.FunctionCtx",
            "torch.autograd.graph.saved_tensors_hooks", "torch.nn.Module", "torch.nn.Parameter",
            "torch.library.CustomOpDef", "torch._subclasses.fake_tensor.FakeTensorMode", "torch._ops.OpOverload",
            "socket.socket", "json.encoder.JSONEncoder", "json.decoder.JSONDecoder")
# Classes a name added to would shadow what the reply path inherits (socket.socket.sendall): added names count.
_STRICT = frozenset({"socket.socket", "json.encoder.JSONEncoder", "json.decoder.JSONDecoder"})
# Tables whose entries the learner's process acts on: compared entry by entry, not only as names.
_REGISTRIES = (("autograder.engine.shared", "PROBES"), (_CHECKS_COMMON, "PROBES"),
               ("autograder.engine.sandbox.learner_requests", "OPERATIONS"),
               ("autograder.engine.sandbox.integrity", "PROBES"))

# The probes as registered before any answer ran: the learner's process runs these (learner_requests.op_probe
# holds this very dict), whatever an answer does to checks.common.PROBES.
PROBES: dict = {}
_baseline: dict = {}   # where -> (the namespace dict, its version tag then, {name: object})


def _names() -> list[str]:
    own = [name for name in list(sys.modules) if name.startswith(_OWN)]
    return list(dict.fromkeys(list(_WATCHED) + list(_CLASSES) + sorted(own)))


def _names_since(names: list[str], modules_version: int | None) -> list[str]:
    """_names() now, knowing it was `names` when sys.modules' version tag was `modules_version`: while that
    tag has not moved no module came or went, and the ~3,000 modules are not walked again. (Walking them writes
    each name's reference count: in a fork of the root that copied 70 MB of its shared huge pages into 4 KiB
    ones, which every later fork then copies and every exit releases, page by page.)"""
    tag = _version_tag(sys.modules)
    return names if tag is not None and tag.value == modules_version else _names()


def _namespace(where: str) -> dict | None:
    """The dict behind a module, or behind a class (its own dict, not the mappingproxy), found afresh."""
    if where in _CLASSES:
        module, _, attr = where.rpartition(".")
        cls = getattr(sys.modules.get(module), attr, None)
        return gc.get_referents(cls.__dict__)[0] if isinstance(cls, type) else None
    module = sys.modules.get(where)
    return vars(module) if module is not None else None


def _version_tag(namespace: dict):
    """A live view of PyDictObject.ma_version_tag (CPython 3.11: after refcount, type and size), or None."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11) or type(namespace) is not dict:
        return None
    return ctypes.c_uint64.from_address(id(namespace) + 3 * ctypes.sizeof(ctypes.c_ssize_t))


def _keyword_defaults(fn) -> list:
    """(function, its keyword-only defaults, their items) for a function that has some: the audit hook keeps
    the dict in place, not what it holds."""
    return [(fn, fn.__kwdefaults__, tuple(fn.__kwdefaults__.items()))] if fn.__kwdefaults__ else []


def _cell_contents(fn) -> list:
    """(cell, what it holds) for each filled cell of fn's closure (the tuple of cells itself is read-only)."""
    found = []
    for cell in fn.__closure__ or ():
        try:
            found.append((cell, cell.cell_contents))
        except ValueError:  # an empty cell
            pass
    return found


def _own_functions(modules: list[str]) -> list:
    """The functions of the checks and the sandbox: module-level ones, the methods of their classes, and the
    functions that decorators (functools.wraps, @probe) wrap."""
    found, seen = [], set()

    def add(value, module: str) -> None:
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            for part in (value.fget, value.fset, value.fdel):
                add(part, module)
            return
        if isinstance(value, types.FunctionType) and id(value) not in seen:
            seen.add(id(value))
            found.append(value)
            add(value.__dict__.get("__wrapped__"), module)
        elif isinstance(value, type) and value.__module__ == module and id(value) not in seen:
            seen.add(id(value))
            for item in list(vars(value).values()):
                add(item, module)

    for name in modules:
        module = sys.modules.get(name)
        for value in list(vars(module).values()) if module is not None else ():
            if getattr(value, "__module__", None) == name:
                add(value, name)
    for fn in PROBES.values():
        add(fn, getattr(fn, "__module__", ""))
    return found


def _library_functions() -> list:
    """The Python functions of PyTorch's modules in _LIBRARIES, as loaded now: module-level ones and their classes'
    methods (whose code the audit hook then keeps)."""
    found, seen = [], set()
    for name in [m for m in list(sys.modules) if m.startswith(_LIBRARIES)]:
        module = sys.modules.get(name)
        for value in list(vars(module).values()) if isinstance(module, types.ModuleType) else ():
            if isinstance(value, type) and value.__dict__.get("__module__") == name:
                values = [v.__func__ if isinstance(v, (staticmethod, classmethod)) else v
                          for v in list(vars(value).values())]
            else:
                values = [value]
            for fn in values:
                if isinstance(fn, types.FunctionType) and fn.__module__ == name and id(fn) not in seen:
                    seen.add(id(fn))
                    found.append(fn)
    return found


def _guard(event, args, _protected=frozenset(), _attributes=frozenset(), _id=id, _error=RuntimeError):
    """An audit hook (Python cannot remove one): refuses to change the code or defaults of the grader's functions,
    this hook's own included. It reads nothing but its own defaults, which it guards."""
    if event == "object.__setattr__" and args[1] in _attributes and _id(args[0]) in _protected:
        raise _error(f"the grader's functions cannot be changed ({args[1]})")


def _own_classes(modules: list[str]) -> list[type]:
    found = []
    for name in modules:
        module = sys.modules.get(name)
        for value in list(vars(module).values()) if module is not None else ():
            if isinstance(value, type) and value.__module__ == name and value not in found:
                found.append(value)
    return found


_PREPARED: list = []  # [(names, sys.modules' version tag, baseline, held, functions)]: `prepare`'s record, for
                      # `record` to take if nothing moved since


def prepare() -> None:
    """Take the record ahead, in the root, once its imports and warm-ups are done (17 ms that every learner's
    sandbox would pay again): `record` takes it as it is where no namespace, registry, closure or keyword default
    has changed since, which the dicts' version tags show exactly; anywhere else it records afresh."""
    tag = _version_tag(sys.modules)
    _PREPARED[:] = [(_names(), tag.value if tag is not None else None, *_take())]


_GONE = object()
_WALKED = (type, types.FunctionType, staticmethod, classmethod, property)


def _unchanged_since(names: list, modules_version, baseline: dict, held: tuple, functions: list) -> bool:
    """Whether a record taken afresh now would be `held`: the same namespaces, each dict's version tag where it
    was (CPython bumps it on every change, and never gives a tag twice), the same captured values."""
    entries, registries, states, cells = held
    if names != _names_since(names, modules_version):
        return False
    for where, entry in entries:
        namespace, tag, version, before, is_module, _ = entry
        if is_module and getattr(sys.modules.get(where), "__dict__", None) is not namespace:
            return False
        if tag is None or tag.value != version:  # written to since (or no tag): what a fresh record would see
            now = {key: value for key, value in dict(namespace).items() if type(key) is str}
            moved = [key for key in now.keys() | before.keys() if now.get(key, _GONE) is not before.get(key, _GONE)]
            # A name rebound to plain data (a module's cache) is taken as it is now; a class or a function added,
            # removed or rebound changes what the record walks (the grader's functions): then record afresh.
            if any(isinstance(value, _WALKED) for key in moved for value in (now.get(key), before.get(key))):
                return False
            entry[3] = now
            if tag is not None:
                entry[2] = tag.value
    if any(tag is None or tag.value != version for _, _, tag, version, _ in registries):
        return False
    return not changed(held)


def record() -> str:
    """Remember every (namespace, name) -> object, the registries' entries and what the grader's own functions
    run, before learner code runs; once per process. The record is held by `changed` itself (its default
    argument, which the audit hook `_guard` then keeps as it is, as it keeps every grader function's code):
    rebinding a name of this module, or calling record() again, does not reach it. Which record it took:
    "prepared" (`prepare`'s), "fresh", or "" (one was taken already)."""
    if changed.__defaults__ != (None,):
        return ""
    prepared = _PREPARED.pop() if _PREPARED else None
    taken = "prepared" if prepared is not None and _unchanged_since(*prepared) else "fresh"
    if taken == "prepared":
        _, _, baseline, held, functions = prepared
    else:
        baseline, held, functions = _take()
    _baseline.clear()
    _baseline.update(baseline)
    changed.__defaults__ = (held,)
    _guard.__defaults__ = (frozenset(map(id, functions + [changed, _guard])),
                           frozenset({"__code__", "__defaults__", "__kwdefaults__"}), id, RuntimeError)
    sys.addaudithook(_guard)
    return taken


def _take() -> tuple[dict, tuple, list]:
    """(baseline, held, the grader's functions): the record, as `changed` holds it, and what `_guard` keeps."""
    common = sys.modules.get(_CHECKS_COMMON)
    if PROBES != getattr(common, "PROBES", {}):  # (refilled only when it differs: a refill moves its version tag)
        PROBES.clear()
        PROBES.update(getattr(common, "PROBES", {}))
    baseline = {}
    for where in _names():
        namespace = _namespace(where)
        if namespace is None:
            continue
        objects = {key: value for key, value in dict(namespace).items() if type(key) is str}
        tag = _version_tag(namespace)
        baseline[where] = [namespace, tag, tag.value if tag is not None else None, objects, where not in _CLASSES,
                           where in _STRICT]
    for cls in _own_classes([m for m in _names() if m.startswith(_OWN)]):  # the grader's classes (Channel, ...)
        namespace = gc.get_referents(cls.__dict__)[0]
        tag = _version_tag(namespace)
        baseline[f"{cls.__module__}.{cls.__qualname__}"] = [namespace, tag, tag.value if tag is not None else None,
                                                           dict(namespace), False, True]
    registries = []
    for module, attr in _REGISTRIES:
        table = getattr(sys.modules.get(module), attr, None)
        if type(table) is dict:
            tag = _version_tag(table)
            registries.append([f"{module}.{attr}", table, tag, tag.value if tag is not None else None,
                               tuple(table.items())])
    functions = _own_functions([m for m in _names() if m.startswith(_OWN)])
    watched = [fn for fn in functions if fn is not changed and fn is not _guard]
    held = (tuple(baseline.items()), tuple(registries), tuple(k for fn in watched for k in _keyword_defaults(fn)),
            tuple(pair for fn in watched for pair in _cell_contents(fn)))
    return baseline, held, functions + _library_functions()


def changed(_record=None) -> list[str]:
    """Names whose object was replaced or removed since record() (added names are allowed), registry entries
    replaced, added or removed, and what grader functions captured (closures, keyword defaults) that changed.
    Their code and defaults cannot change: the audit hook refuses it."""
    if _record is None:
        return []
    baseline, registries, states, cells = _record
    found = []
    for where, entry in baseline:
        namespace, tag, version, before, is_module, strict = entry
        # A module swapped in sys.modules (a class cannot swap its own dict: its module's would change).
        if is_module and getattr(sys.modules.get(where), "__dict__", None) is not namespace:
            found.append(f"{where} (replaced)")
            continue
        if tag is not None and tag.value == version:
            continue
        now = dict(namespace)
        moved = [f"{where}.{key}" for key, value in before.items()
                 if key not in now or now[key] is not value and key not in _VOLATILE]
        if strict:
            moved += [f"{where}.{key} (added)" for key in now if key not in before]
        if not moved and tag is not None:  # only names added, or changed and put back: skip it next time
            entry[2] = tag.value
        found += moved
    for entry in registries:
        name, table, tag, version, items = entry
        if tag is not None and tag.value == version:
            continue
        now = tuple(table.items())
        if len(now) != len(items) or any(k1 is not k2 and k1 != k2 or v1 is not v2
                                         for (k1, v1), (k2, v2) in zip(now, items)):
            found.append(f"{name} (entries)")
        elif tag is not None:
            entry[3] = tag.value
    for fn, kwdefaults, items in states:
        if tuple(kwdefaults.items()) != items:
            found.append(f"{fn.__module__}.{fn.__qualname__} (keyword defaults)")
    for cell, value in cells:
        try:
            same = cell.cell_contents is value
        except ValueError:
            same = False
        if not same:
            found.append(f"a variable captured by the grader's functions ({value!r:.40})")
    return found


# Names PyTorch itself rebinds for honest calls (torch.set_default_dtype rebinds torch.Storage).
# FakeTensorMode counts its cache's hits and misses in class attributes.
_VOLATILE = frozenset({"__warningregistry__", "_base_seed", "_learner", "__loader__", "__spec__", "Storage",
                       "cache_hits", "cache_misses"})
