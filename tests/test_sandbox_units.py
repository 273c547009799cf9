"""Unit tests of the grading engine's parts that need no fork: the codec, the proxy's graph node, the
integrity checkpoint, the seccomp program."""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest
import torch

from autograder.sandbox import channel, codec, confine, integrity


def roundtrip(value):
    header, buffers = codec.encode(value)
    raw = channel.pack(header, buffers)
    prefix = raw[:channel.PREFIX_SIZE]
    hsize, bsize = channel.unpack_prefix(prefix)
    header2, buffers2 = channel.unpack(raw[channel.PREFIX_SIZE:channel.PREFIX_SIZE + hsize], raw[channel.PREFIX_SIZE + hsize:])
    return codec.decode(header2, buffers2)


@pytest.mark.parametrize("value", [
    None, True, 3, 2.5, float("inf"), "text", [1, (2, 3)], {"a": [1.0, None]}, (), torch.float32,
    slice(1, None, 2), torch.device("cpu")])
def test_plain_values_roundtrip(value):
    assert roundtrip(value) == value and type(roundtrip(value)) is type(value)


@pytest.mark.parametrize("tensor", [
    torch.randn(3, 4, dtype=torch.float64), torch.tensor(2.0), torch.zeros(0, 3), torch.arange(6).reshape(2, 3).t(),
    torch.ones(3).expand(4, 3), torch.tensor([True, False]), torch.randn(2, dtype=torch.bfloat16),
    torch.randn(2, dtype=torch.complex64)])
def test_tensors_roundtrip_with_values_dtype_and_layout(tensor):
    back = roundtrip(tensor)
    assert back.dtype == tensor.dtype and back.shape == tensor.shape and torch.equal(back, tensor)
    if tensor.numel() and 0 in tensor.stride():
        assert back.stride() == tensor.stride()  # an expanded grad_output stays expanded


def test_decoded_tensor_owns_its_storage():
    back = roundtrip(torch.randn(3))
    assert back._base is None  # not a view of the message buffer: autograd may modify it in place


def test_numpy_arrays_roundtrip_and_object_arrays_do_not():
    assert np.array_equal(roundtrip(np.arange(5.0)), np.arange(5.0))
    header, buffers = codec.encode(np.arange(3))
    header["v"]["dtype"] = "|O"
    with pytest.raises(codec.CodecError):
        codec.decode(header, buffers)


def test_objects_that_cannot_travel_are_refused():
    with pytest.raises(TypeError):
        codec.encode(object())
    handle = codec.Handle(7, {"type": "Square"})
    assert codec.decode(*codec.encode([handle]))[0].id == 7


@pytest.mark.parametrize("header,body", [
    ({"v": {"t": 0, "dtype": "float64", "shape": [3]}, "sizes": [8]}, b"\0" * 8),     # data shorter than shape
    ({"v": {"t": 0, "dtype": "object", "shape": [1]}, "sizes": [8]}, b"\0" * 8),      # unknown dtype
    ({"v": {"t": 0, "dtype": "float64", "shape": [-1]}, "sizes": [8]}, b"\0" * 8),    # negative shape
    ({"v": {"t": 5, "dtype": "float64", "shape": [1]}, "sizes": [8]}, b"\0" * 8),     # missing buffer
    ({"v": {"t": 0, "dtype": "float64", "shape": [4], "stride": [9]}, "sizes": [8]}, b"\0" * 8),  # strides past data
    ({"v": {"nonsense": 1}, "sizes": []}, b""),
])
def test_malformed_messages_are_refused(header, body):
    with pytest.raises(codec.CodecError):
        head, buffers = channel.unpack(json.dumps(header).encode(), body)
        codec.decode(head, buffers)


def test_oversized_frames_are_refused():
    with pytest.raises(codec.CodecError):
        channel.unpack_prefix(channel._PREFIX.pack(channel.MAX_FRAME, 1))


def test_integrity_sees_replaced_objects_not_added_ones():
    integrity.record()
    assert integrity.changed() == []
    original = torch.autograd.function.BackwardCFunction.apply
    torch.Tensor.some_new_helper = lambda self: self  # added: allowed
    try:
        assert integrity.changed() == []
        torch.autograd.function.BackwardCFunction.apply = lambda self, *args: None
        assert "torch.autograd.function.BackwardCFunction.apply" in integrity.changed()
    finally:
        torch.autograd.function.BackwardCFunction.apply = original
        del torch.Tensor.some_new_helper
    assert integrity.changed() == []


def test_integrity_sees_a_replaced_module_and_skips_unchanged_namespaces(monkeypatch):
    integrity.record()
    numpy_ns = vars(sys.modules["numpy"])
    tag = integrity._version_tag(numpy_ns)
    version = tag.value
    assert integrity._baseline["numpy"][2] == version  # the fast path is in force
    doc = numpy_ns["__doc__"]
    numpy_ns["__doc__"], numpy_ns["__doc__"] = "changed", doc  # changed and put back: the tag moved
    assert tag.value != version and integrity.changed() == []
    assert integrity._baseline["numpy"][2] == tag.value  # so the next check skips it
    monkeypatch.setitem(sys.modules, "numpy", types.ModuleType("numpy"))
    assert integrity.changed() == ["numpy (replaced)"]


@pytest.mark.parametrize("forks", ["notify", "deny"])
def test_seccomp_program_jumps_stay_inside_it(forks):
    program = confine.seccomp_program(1234, forks)
    for index, (code, jt, jf, k) in enumerate(program):
        if code in (confine.JEQ, confine.JGE, confine.JSET):
            assert index + 1 + jt < len(program) and index + 1 + jf < len(program)
    returns = {k for code, _, _, k in program if code == confine.RET}
    assert (confine.RET_NOTIFY in returns) == (forks == "notify")
