"""What an autograd graph keeps alive for backward, read from the graph itself (shared by several notebooks; see
`behaviour`).

`kept_by_graph(outputs)`: each node's saved tensors as they were packed, without unpacking them, and every
attribute of a custom Function's ctx, containers included; and what a hook of the answer's keeps, in its closure or
in the global names it reads. So neither the answer's own saved-tensor hooks, which win over any hook the grader
installs around the call, nor a list on ctx hide a tensor from it. A saved tensor packed by
torch.utils.checkpoint is not kept (it is recomputed in backward), and is left out. `on_ctx(ctx)` lists the
tensors an answer kept on a ctx outside save_for_backward.
"""

from __future__ import annotations

import types
import warnings

import torch
from torch.autograd.function import FunctionCtx

from autograder.engine import shared


def _checkpoint_unpack_code():
    """The code of torch.utils.checkpoint's own unpack hook (non-reentrant variant), read off a real graph."""
    from torch.utils.checkpoint import checkpoint

    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = checkpoint(torch.sin, x, use_reentrant=False)
    return y.grad_fn._raw_saved_self.unpack_hook.__code__


_CHECKPOINT_UNPACK = _checkpoint_unpack_code()
_SavedTensor = torch._C._autograd.SavedTensor
_OPAQUE = (type, types.ModuleType, types.BuiltinFunctionType, str, bytes, int, float, bool, complex, type(None))


def _tensors_in(value, where: str, found: list, seen: dict, depth: int = 0) -> None:
    """(where, tensor) for every tensor in `value`: containers, object attributes and closures looked into.
    `seen` holds what was looked at (by id, and the object itself, so that no id is reused meanwhile). A proxy of
    the learner's objects (in the judge) is never opened: what it holds is the learner's, read there by the
    probes below (`real_node`), not the judge's own link."""
    if depth > 8 or id(value) in seen or isinstance(value, _OPAQUE) or shared.handle_id(value) is not None:
        return
    seen[id(value)] = value
    if isinstance(value, torch.Tensor):
        found.append((where, value))
        return
    if isinstance(value, _SavedTensor):
        hook = value.unpack_hook
        if hook is not None and getattr(hook, "__code__", None) is _CHECKPOINT_UNPACK:
            return  # checkpoint keeps a placeholder and recomputes the tensor in backward
        try:
            packed = value.data
        except RuntimeError:  # already freed (after a backward without retain_graph)
            return
        _tensors_in(packed, where, found, seen, depth + 1)
        if hook is not None:
            _tensors_in(hook, where, found, seen, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in list(value.items()):
            _tensors_in(item, f"{where}[{key!r}]", found, seen, depth + 1)
        return
    if isinstance(value, (list, tuple, set, frozenset)):
        for k, item in enumerate(list(value)):
            _tensors_in(item, f"{where}[{k}]", found, seen, depth + 1)
        return
    if isinstance(value, (types.FunctionType, types.MethodType)):
        function = getattr(value, "__func__", value)
        _tensors_in(getattr(value, "__self__", None), where, found, seen, depth + 1)
        for cell in function.__closure__ or ():
            try:
                _tensors_in(cell.cell_contents, where, found, seen, depth + 1)
            except ValueError:  # an empty cell
                pass
        _tensors_in(function.__defaults__, where, found, seen, depth + 1)
        _tensors_in(function.__kwdefaults__, where, found, seen, depth + 1)
        if not str(getattr(function, "__module__", "") or "").startswith("torch"):
            # the global names a hook of the answer's reads (a list it keeps the tensors in)
            namespace = getattr(function, "__globals__", {})
            for name in _names_read(function.__code__):
                if name in namespace:
                    _tensors_in(namespace[name], where, found, seen, depth + 1)
        return
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        _tensors_in(state, where, found, seen, depth + 1)
    for slot in getattr(type(value), "__slots__", ()) if isinstance(getattr(type(value), "__slots__", ()),
                                                                     (tuple, list)) else ():
        if isinstance(slot, str) and hasattr(value, slot):
            _tensors_in(getattr(value, slot), f"{where}.{slot}", found, seen, depth + 1)


def _names_read(code, depth: int = 0) -> set:
    names = set(code.co_names)
    if depth < 3:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= _names_read(const, depth + 1)
    return names


_SAVED_NAMES: dict = {}  # node class -> the names of its saved-tensor accessors (class-level, so fixed per class)


def _saved_names(cls) -> tuple:
    names = _SAVED_NAMES.get(cls)
    if names is None:
        names = _SAVED_NAMES[cls] = tuple(n for n in dir(cls) if n.startswith("_raw_saved_"))
    return names


def kept_by_graph(outputs, limit: int = 100_000) -> list:
    """(where, tensor) for every tensor the autograd graph behind `outputs` keeps for backward. `where` is
    "ctx.<name>..." for an attribute of a custom Function's ctx, else "saved by <node>"."""
    found: list = []
    seen: dict = {}
    nodes = [t.grad_fn for t in outputs if isinstance(t, torch.Tensor) and t.grad_fn is not None]
    visited: set = set()
    while nodes and len(visited) < limit:
        node = nodes.pop()
        if node is None or id(node) in visited:
            continue
        visited.add(id(node))
        label = f"saved by {type(node).__name__}"
        for name in _saved_names(type(node)):
            try:
                value = getattr(node, name)
            except RuntimeError:
                continue
            _tensors_in(value, label, found, seen)
        if isinstance(node, FunctionCtx):
            for name, value in list(vars(node).items()):
                _tensors_in(value, f"ctx.{name}", found, seen)
        nodes.extend(fn for fn, _ in node.next_functions)
    return found


def storage_of(tensor) -> tuple[int, int]:
    """(key, bytes) of a tensor's storage (0 bytes for a tensor without storage of its own)."""
    try:
        storage = tensor.untyped_storage()
        return storage.data_ptr(), storage.nbytes()
    except (RuntimeError, NotImplementedError):
        return id(tensor), 0


def tensors_in(value, where: str) -> list:
    """(where, tensor) for every tensor in `value` (containers, attributes and closures looked into)."""
    found: list = []
    _tensors_in(value, where, found, {})
    return found


CTX_OWN = frozenset({"_needs", "_forward", "to_save", "saved_for_forward", "dirty_tensors", "non_differentiable",
                     "materialize_grads"})


def on_ctx(ctx) -> list:
    """(ctx.<name>..., tensor) for every tensor a Function put among a stand-in ctx's attributes itself (not
    through save_for_backward or the other ctx methods), in containers too."""
    found: list = []
    for name, value in vars(ctx).items():
        if name not in CTX_OWN:
            found += tensors_in(value, f"ctx.{name}")
    return found
