"""One cheap integrity checkpoint in the learner's process, before every reply: the Python-level namespaces
of PyTorch, NumPy, the builtins and the checks still hold the objects they held before any learner code ran.

It guards what the judge cannot see for itself: a learner's Function observed through a patched autograd
(`BackwardCFunction.apply` doubling gradients), and the probes' facts. It does not pretend to stop code that
rewrites memory (docs/threat-model.md): values and gradients never rest on it, since the judge computes them.

Cheap because CPython 3.11 bumps a dict's version tag on every change to it: a namespace whose tag has not
moved is not compared name by name (without reading the tag, each check touched 4,500 objects: 1.3 ms per
reply, 13 ms for a fresh copy's first reply, whose pages the reads copied).
"""

from __future__ import annotations

import ctypes
import gc
import sys

_WATCHED = ("builtins", "torch", "torch.autograd", "torch.autograd.function", "torch.autograd.graph",
            "torch.autograd.gradcheck", "torch.nn.functional", "torch.func", "torch.library", "torch.utils.checkpoint",
            "numpy", "numpy.testing", "autograder.checks.common")
_CLASSES = ("torch.Tensor", "torch._C.TensorBase", "torch.autograd.Function",
            "torch.autograd.function.BackwardCFunction", "torch.autograd.function.FunctionCtx")
_baseline: dict = {}   # where -> (the namespace dict, its version tag then, {name: object})


def _names() -> list[str]:
    checks = [name for name in list(sys.modules) if name.startswith("autograder.checks.")]
    return list(_WATCHED) + list(_CLASSES) + sorted(checks)


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


def record() -> None:
    """Remember every (namespace, name) -> object, before learner code runs."""
    _baseline.clear()
    for where in _names():
        namespace = _namespace(where)
        if namespace is None:
            continue
        objects = {key: value for key, value in dict(namespace).items() if type(key) is str}
        tag = _version_tag(namespace)
        _baseline[where] = [namespace, tag, tag.value if tag is not None else None, objects]


def changed() -> list[str]:
    """Names whose object was replaced or removed since record() (added names are allowed)."""
    found = []
    for where, entry in _baseline.items():
        namespace, tag, version, before = entry
        # A module swapped in sys.modules (a class cannot swap its own dict: its module's would change).
        if where not in _CLASSES and getattr(sys.modules.get(where), "__dict__", None) is not namespace:
            found.append(f"{where} (replaced)")
            continue
        if tag is not None and tag.value == version:
            continue
        now = dict(namespace)
        moved = [f"{where}.{key}" for key, value in before.items()
                 if key not in now or now[key] is not value and key not in _VOLATILE]
        if not moved and tag is not None:  # only names added, or changed and put back: skip it next time
            entry[2] = tag.value
        found += moved
    return found


# Names PyTorch itself rebinds for honest calls (torch.set_default_dtype rebinds torch.Storage).
_VOLATILE = frozenset({"__warningregistry__", "_base_seed", "_learner", "__loader__", "__spec__", "Storage"})
