"""Values that cross between the judge and the learner's process: a JSON header plus raw tensor bytes.

Never pickle: decoding a message the learner's process wrote must not run code. Everything is a tagged
tree of plain JSON; tensors and NumPy arrays travel as (dtype, shape, strides) in the header and their bytes
beside it. Objects that cannot travel by value (the learner's classes and functions) travel as handles:
numbers that name the object in the process that owns it.
"""

from __future__ import annotations

import numpy as np
import torch

from autograder.engine.sandbox.channel import CodecError

# The most bytes one decoded tensor may stand for, however few were sent: an expanded (stride-0) reply of
# 8 bytes can describe gigabytes, which the first check that touches it would allocate in the judge.
MAX_TENSOR_BYTES = 256 * 1024 * 1024


class TooLarge(CodecError):
    """A tensor larger than the judge takes (its size is in the message, for the learner's feedback)."""


_DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128)}


# A learner's exception crosses as its type's name, message and the first of these it is an instance of,
# which the judge raises in its place (checks catch NotImplementedError, RuntimeError, ...).
ERROR_BASES = (NotImplementedError, RuntimeError, TypeError, ValueError, IndexError, KeyError, AttributeError,
               ZeroDivisionError, AssertionError, ArithmeticError, LookupError, MemoryError, NameError,
               PermissionError, OSError, ImportError, RecursionError)


class CtxState:
    """A stand-in ctx (checks.common.FakeCtx or a subclass) crossing by value: its class, a key that
    names the same ctx on the other side, and its attributes."""

    __slots__ = ("key", "cls", "state")

    def __init__(self, key: int, cls: str, state: dict):
        self.key, self.cls, self.state = key, cls, state


class Ref:
    """A module-level function of the checks (autograder.checks.*), sent by name: both processes have it."""

    __slots__ = ("path",)

    def __init__(self, path: str):
        self.path = path


class Handle:
    """An object that stays in the process that owns it, named by a number. `info` says what it is."""

    __slots__ = ("id", "info")

    def __init__(self, id: int, info: dict | None = None):
        self.id = id
        self.info = info or {}


def encode(value, handle_of=None, tensor_tag=None) -> tuple[dict, list[bytes]]:
    """(header, buffers). `handle_of(obj)` turns an object that cannot travel by value into a Handle, Ref or
    CtxState (or raises TypeError); `tensor_tag(tensor)` adds fields to a tensor's header (facts only its
    owner knows)."""
    buffers: list[bytes] = []

    def walk(v, depth):
        if depth > 20:
            raise TypeError("value nested too deeply to send")
        kind = type(v)
        if v is None or kind in (bool, int, str):
            return v
        if kind is float:
            return v if v == v and v not in (float("inf"), float("-inf")) else {"f": repr(v)}
        if kind is list:
            return {"L": [walk(x, depth + 1) for x in v]}
        if kind is tuple or kind is torch.Size:
            return {"T": [walk(x, depth + 1) for x in v]}
        if kind is dict and all(type(k) is str for k in v):
            return {"D": {k: walk(x, depth + 1) for k, x in v.items()}}
        if isinstance(v, torch.Tensor):
            return _tensor(v, buffers, tensor_tag)
        if kind is np.ndarray:
            data = np.ascontiguousarray(v)
            buffers.append(data.tobytes())
            return {"nd": len(buffers) - 1, "dtype": data.dtype.str, "shape": list(data.shape)}
        if isinstance(v, np.generic):
            return walk(v.item(), depth)
        if kind is torch.dtype:
            if str(v).removeprefix("torch.") not in _DTYPES:  # (the judge reads these only: a handle instead)
                raise TypeError(f"cannot send the dtype {v}")
            return {"dtype": str(v).removeprefix("torch.")}
        if kind is torch.device:
            return {"device": str(v)}
        if kind is slice:
            return {"slice": [walk(v.start, depth + 1), walk(v.stop, depth + 1), walk(v.step, depth + 1)]}
        if v is Ellipsis:
            return {"ellipsis": True}
        if kind is Handle:
            return {"h": v.id, "info": v.info}
        if kind is Ref:
            return {"ref": v.path}
        if kind is CtxState:
            return {"ctx": v.key, "cls": v.cls, "state": walk(v.state, depth + 1)}
        if handle_of is None:
            raise TypeError(f"cannot send a {kind.__name__}")
        return walk(handle_of(v), depth + 1)  # a Handle, a Ref or a CtxState

    return {"v": walk(value, 0), "sizes": [len(b) for b in buffers]}, buffers


def tensors_in(value, found: list | None = None) -> list:
    """The tensors in `value` (through lists, tuples and dicts), in the order encode() meets them."""
    found = [] if found is None else found
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif type(value) in (list, tuple):
        for v in value:
            tensors_in(v, found)
    elif type(value) is dict:
        for v in value.values():
            tensors_in(v, found)
    return found


def _tensor(t: torch.Tensor, buffers: list, tensor_tag) -> dict:
    if t.layout != torch.strided or t.is_quantized or t.device.type != "cpu":
        raise TypeError(f"cannot send a {t.layout} tensor on {t.device}")
    dtype = str(t.dtype).removeprefix("torch.")
    if dtype not in _DTYPES:
        raise TypeError(f"cannot send a tensor of dtype {t.dtype}")
    plain = t.detach()
    if plain.is_conj() or plain.is_neg():
        plain = plain.resolve_conj().resolve_neg()
    header = {"t": len(buffers), "dtype": dtype, "shape": list(plain.shape)}
    if not plain.is_contiguous() and plain.numel() > 0 and min(plain.stride(), default=0) >= 0:
        # Keep the layout (an expanded stride-0 grad_output stays one): send the span of memory it covers.
        span = 1 + sum((n - 1) * s for n, s in zip(plain.shape, plain.stride()))
        flat = plain.as_strided((span,), (1,))
        header["stride"] = list(plain.stride())
        plain = flat.clone()
    else:
        # Contiguous ignores the strides of size-1 dims: a one-element expanded tensor (the grad_output of .sum() of a
        # one-element output) is contiguous with stride 0, which reshape(-1) keeps and view(uint8) refuses.
        plain = plain.contiguous()
        plain = plain.as_strided((plain.numel(),), (1,))
    buffers.append(plain.reshape(-1).view(torch.uint8).numpy().tobytes() if plain.numel() else b"")
    header["rg"] = bool(t.requires_grad)
    header["leaf"] = bool(t.is_leaf)
    if tensor_tag is not None:
        header.update(tensor_tag(t))
    return header


def decode(header: dict, buffers: list[bytes], resolve=None, on_tensor=None):
    """The value a header and its buffers describe. `resolve(id, info)` turns a handle back into an object
    (default: a Handle); `on_tensor(tensor, header)` may replace a decoded tensor (identity, requires_grad)."""

    def walk(node, depth):
        if depth > 22:
            raise CodecError("nested too deeply")
        if node is None or type(node) in (bool, int, str):
            return node
        if type(node) is float:
            return node
        if type(node) is not dict or len(node) == 0:
            raise CodecError("malformed value")
        if "L" in node:
            return [walk(x, depth + 1) for x in _list(node["L"])]
        if "T" in node:
            return tuple(walk(x, depth + 1) for x in _list(node["T"]))
        if "D" in node:
            items = node["D"]
            if type(items) is not dict:
                raise CodecError("malformed dict")
            return {str(k): walk(x, depth + 1) for k, x in items.items()}
        if "f" in node:
            return float(_text(node["f"]))
        if "t" in node:
            tensor = _decode_tensor(node, buffers)
            return on_tensor(tensor, node) if on_tensor is not None else tensor
        if "nd" in node:
            data = _buffer(buffers, node["nd"])
            dtype = np.dtype(_text(node["dtype"]))
            if dtype.hasobject:
                raise CodecError("object arrays do not travel")
            return np.frombuffer(data, dtype=dtype).reshape(_shape(node["shape"])).copy()
        if "dtype" in node:
            return _dtype(node["dtype"])
        if "device" in node:
            return torch.device(_text(node["device"]))
        if "slice" in node:
            return slice(*(walk(x, depth + 1) for x in _list(node["slice"])))
        if "ellipsis" in node:
            return Ellipsis
        if "ref" in node:
            return Ref(_text(node["ref"]))
        if "ctx" in node:
            state = walk(node.get("state"), depth + 1)
            if type(node["ctx"]) is not int or type(state) is not dict:
                raise CodecError("malformed ctx")
            return CtxState(node["ctx"], _text(node.get("cls")), state)
        if "h" in node:
            if type(node["h"]) is not int:
                raise CodecError("malformed handle")
            info = node.get("info", {})
            info = info if type(info) is dict else {}
            return resolve(node["h"], info) if resolve is not None else Handle(node["h"], info)
        raise CodecError("unknown value tag")

    if type(header) is not dict:
        raise CodecError("malformed header")
    return walk(header.get("v"), 0)


def _decode_tensor(node: dict, buffers: list) -> torch.Tensor:
    dtype = _dtype(node["dtype"])
    shape = _shape(node["shape"])
    count = 1
    for n in shape:
        count *= n
    size = count * dtype.itemsize
    if size > MAX_TENSOR_BYTES:
        raise TooLarge(f"a tensor of shape {tuple(shape)} ({size / 2**20:,.0f} MB) is larger than the grader "
                       f"takes ({MAX_TENSOR_BYTES // 2**20} MB); the exercises need far smaller ones")
    data = _buffer(buffers, node["t"])
    raw = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
    flat = raw.view(dtype)
    if "stride" in node:
        stride = _shape(node["stride"])
        if len(stride) != len(shape):
            raise CodecError("malformed strides")
        span = 1 + sum((n - 1) * s for n, s in zip(shape, stride)) if all(shape) else 0
        if span > flat.numel():
            raise CodecError("strides reach past the data sent")
        return flat.as_strided(tuple(shape), tuple(stride))
    if count != flat.numel():
        raise CodecError("tensor data does not match its shape")
    return flat.reshape(tuple(shape)).clone()  # its own storage: not a view of the message's buffer


def _list(value) -> list:
    if type(value) is not list:
        raise CodecError("malformed list")
    return value


def _text(value) -> str:
    if type(value) is not str:
        raise CodecError("malformed text")
    return value


def _shape(value) -> list:
    if type(value) is not list or any(type(n) is not int or n < 0 for n in value) or len(value) > 32:
        raise CodecError("malformed shape")
    return value


def _dtype(value) -> torch.dtype:
    if type(value) is not str or value not in _DTYPES:
        raise CodecError("unknown dtype")
    return _DTYPES[value]


def _buffer(buffers: list, index) -> bytes:
    if type(index) is not int or not 0 <= index < len(buffers):
        raise CodecError("missing buffer")
    return buffers[index]
