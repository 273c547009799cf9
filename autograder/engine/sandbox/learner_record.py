"""What the learner's serving loop observes of every call and every backward it serves, alike, so that none is a
measured one (see `checks.behaviour.record`).

- `observed(fn, args, kwargs)`: the call, with the collector in the same state for every call (on; everything alive
  before the call frozen out of its lists, and left frozen: a later full collection walks only what is new), and
  the tensors the call made that are alive after it (what the collector lists then).
- `record_backwards_of(Function)`: every backward of that class runs through `recording_apply`, which keeps what
  backward returned before the engine checks or repairs it (a gradient summed to its input's shape, a missing None
  added), for every backward alike.
"""

from __future__ import annotations

import gc

import torch

_GC_COLLECT, _GC_FREEZE, _GC_UNFREEZE, _GC_OBJECTS = gc.collect, gc.freeze, gc.unfreeze, gc.get_objects
_TENSOR = torch.Tensor
_NODE = torch.autograd.function.BackwardCFunction
_FUNCTION = torch.autograd.Function
_BACKWARD_APPLY = _NODE.__dict__["apply"]
_TYPE_NAME = type.__dict__["__name__"].__get__
_TYPE_DICT = type.__dict__["__dict__"].__get__
_PROXY_GET = type(type.__dict__).get
_TYPE_SETATTR = type.__setattr__
_type, _issubclass, _isinstance = type, issubclass, isinstance


def observed(fn, args, kwargs) -> tuple:
    """(fn(*args, **kwargs), the tensors the call made that are alive after it)."""
    _GC_COLLECT()  # what earlier requests left as garbage: frozen, it would never go
    _GC_FREEZE()
    try:
        out = fn(*args, **kwargs)
        _GC_COLLECT()
        made = [obj for obj in _GC_OBJECTS() if _issubclass(_type(obj), _TENSOR)]
    finally:
        _GC_FREEZE()
    return out, made


def collected_now() -> None:
    """One full collection, the frozen objects included; then everything is frozen again."""
    _GC_UNFREEZE()
    try:
        _GC_COLLECT()
    finally:
        _GC_FREEZE()


def _raw(value):
    """A value backward returned: a tensor detached and copied, None, or {"not_a_tensor": its type's name}."""
    if value is None:
        return None
    if _issubclass(_type(value), _TENSOR):
        return value.detach().clone()
    return {"not_a_tensor": _TYPE_NAME(_type(value))}


def recording_apply(self, *args, _apply=_BACKWARD_APPLY, _backwards=[]):
    """BackwardCFunction.apply, keeping what backward returned (the last two backwards)."""
    result = _apply(self, *args)
    many = _isinstance(result, (tuple, list))
    values = tuple(result) if many else (result,)
    _backwards.append({"returned": _TYPE_NAME(_type(result)) if many else "one value",
                       "raw": tuple(_raw(v) for v in values), "cls": _type(self)})
    del _backwards[:-2]
    return result


BACKWARDS = recording_apply.__kwdefaults__["_backwards"]


def record_backwards_of(obj) -> None:
    """Run every backward of `obj` (a Function class) through `recording_apply`."""
    if not (_isinstance(obj, _type) and _issubclass(obj, _FUNCTION)):
        return
    node_cls = _PROXY_GET(_TYPE_DICT(obj), "_backward_cls")
    if _isinstance(node_cls, _type) and _issubclass(node_cls, _NODE) and not records_backwards(node_cls):
        _TYPE_SETATTR(node_cls, "apply", recording_apply)


def records_backwards(node_cls) -> bool:
    return _PROXY_GET(_TYPE_DICT(node_cls), "apply") is recording_apply
