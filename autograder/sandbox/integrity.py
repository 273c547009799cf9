"""One cheap integrity checkpoint in the learner's process, before every reply: the Python-level namespaces
of PyTorch, NumPy, the builtins and the checks still hold the objects they held before any learner code ran.

It guards what the judge cannot see for itself: a learner's Function observed through a patched autograd
(`BackwardCFunction.apply` doubling gradients), and the probes' facts. It does not pretend to stop code that
rewrites memory (docs/threat-model.md): values and gradients never rest on it, since the judge computes them.
"""

from __future__ import annotations

import sys

_WATCHED = ("builtins", "torch", "torch.autograd", "torch.autograd.function", "torch.autograd.graph",
            "torch.autograd.gradcheck", "torch.nn.functional", "torch.func", "torch.library", "torch.utils.checkpoint",
            "numpy", "numpy.testing", "autograder.checks.common")
_CLASSES = ("torch.Tensor", "torch._C.TensorBase", "torch.autograd.Function",
            "torch.autograd.function.BackwardCFunction", "torch.autograd.function.FunctionCtx")
_baseline: dict = {}


def _namespaces():
    for name in _WATCHED:
        module = sys.modules.get(name)
        if module is not None:
            yield name, vars(module)
    for dotted in _CLASSES:
        module, _, attr = dotted.rpartition(".")
        cls = getattr(sys.modules.get(module), attr, None)
        if isinstance(cls, type):
            yield dotted, cls.__dict__
    for name, module in list(sys.modules.items()):
        if name.startswith("autograder.checks.") and module is not None:
            yield name, vars(module)


def record() -> None:
    """Remember every (namespace, name) -> object, before learner code runs."""
    _baseline.clear()
    for where, namespace in _namespaces():
        _baseline[where] = {key: value for key, value in dict(namespace).items() if type(key) is str}


def changed() -> list[str]:
    """Names whose object was replaced or removed since record() (added names are allowed)."""
    found = []
    for where, namespace in _namespaces():
        before = _baseline.get(where)
        if before is None:
            continue
        now = dict(namespace)
        found += [f"{where}.{key}" for key, value in before.items()
                  if key not in now or now[key] is not value and key not in _VOLATILE]
    return found


# Names PyTorch itself rebinds for honest calls (torch.set_default_dtype rebinds torch.Storage).
_VOLATILE = frozenset({"__warningregistry__", "_base_seed", "_learner", "__loader__", "__spec__", "Storage"})
