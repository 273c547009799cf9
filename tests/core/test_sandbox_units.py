"""Unit tests of the grading engine's parts that need no fork: the codec, the proxy's graph node, the
integrity checkpoint, the seccomp program."""

from __future__ import annotations

import ctypes
import functools
import json
import os
import re
import sys
import traceback
import types

import numpy as np
import pytest
import torch

from autograder.engine.sandbox import channel, codec, confine, integrity, seccomp


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
    torch.randn(2, dtype=torch.complex64), torch.tensor(2.0, dtype=torch.float64).expand(1, 1)])
def test_tensors_roundtrip_with_values_dtype_and_layout(tensor):
    back = roundtrip(tensor)
    assert back.dtype == tensor.dtype and back.shape == tensor.shape and torch.equal(back, tensor)
    if tensor.numel() and 0 in tensor.stride():  # an expanded grad_output stays expanded (a size-1 dim has no stride)
        assert [s for n, s in zip(back.shape, back.stride()) if n > 1] == [
            s for n, s in zip(tensor.shape, tensor.stride()) if n > 1]


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
        channel.unpack_prefix(channel.PREFIX.pack(channel.MAX_FRAME, 1))


def in_child(test):
    """Run `test` in a forked copy of this process: integrity.record() happens once per process and installs
    an audit hook for good, as in the learner's."""
    def run(*args, **kwargs):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                test(*args, **kwargs)
                code = 0
            except BaseException:  # noqa: BLE001
                traceback.print_exc()
            finally:
                os._exit(code)
        assert os.waitpid(pid, 0)[1] == 0, "the test failed in the child (its traceback is above)"

    return functools.wraps(test)(run)


@in_child
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


@in_child
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


@in_child
def test_the_prepared_record_is_taken_with_the_data_as_it_is_now():
    from autograder.engine.sandbox import cgroup

    integrity.prepare()  # as the root does, once
    cgroup.A_CACHE = {"filled": "by the judge, after the root"}  # plain data in a watched namespace
    assert integrity.record() == "prepared"
    assert integrity._baseline["autograder.engine.sandbox.cgroup"][3]["A_CACHE"] is cgroup.A_CACHE
    assert integrity.changed() == []
    original = torch.autograd.function.BackwardCFunction.apply
    torch.autograd.function.BackwardCFunction.apply = lambda self, *args: None
    try:
        assert "torch.autograd.function.BackwardCFunction.apply" in integrity.changed()
        cgroup.A_CACHE = "rebound by an answer"
        assert "autograder.engine.sandbox.cgroup.A_CACHE" in integrity.changed()
    finally:
        torch.autograd.function.BackwardCFunction.apply = original


@pytest.mark.parametrize("change", ["a function rebound", "a class added", "a closure's value", "a module swapped",
                                    "a module of the grader's imported"])
@in_child
def test_the_prepared_record_is_not_taken_where_what_it_walks_moved(change, monkeypatch):
    from autograder.engine.sandbox import cgroup

    integrity.prepare()
    if change == "a function rebound":
        monkeypatch.setattr(cgroup, "available", lambda: False)
    elif change == "a class added":
        cgroup.Added = type("Added", (), {"__module__": cgroup.__name__, "method": lambda self: 1})
    elif change == "a closure's value":
        own = [name for name in sys.modules if name.startswith(integrity._OWN)]
        cell = next(c for fn in integrity._own_functions(own) for c in fn.__closure__ or ()
                    if fn is not integrity.changed and c.cell_contents is not None)
        monkeypatch.setattr(cell, "cell_contents", object())
    elif change == "a module swapped":
        monkeypatch.setitem(sys.modules, "torch.autograd.graph", types.ModuleType("torch.autograd.graph"))
    else:  # (the names to watch are then walked again: sys.modules' version tag moved)
        monkeypatch.setitem(sys.modules, "autograder.checks.came_later", types.ModuleType("autograder.checks.came_later"))
    assert integrity.record() == "fresh"
    assert integrity.changed() == []  # what was there before any learner code is the record
    if change == "a class added":  # its methods are the grader's functions now, kept as they are
        with pytest.raises(RuntimeError, match="cannot be changed"):
            vars(cgroup.Added)["method"].__code__ = (lambda self: 2).__code__


def test_the_modules_are_walked_again_only_once_one_came_or_went(monkeypatch):
    """Walking sys.modules writes every module name's reference count (in a fork: the pages that hold them):
    while its version tag stays, the names of the record are taken as they were."""
    names = integrity._names()
    tag = integrity._version_tag(sys.modules).value
    walked = []
    monkeypatch.setattr(integrity, "_names", lambda: walked.append(1) or names + ["walked"])
    assert integrity._names_since(names, tag) is names and walked == []
    monkeypatch.setitem(sys.modules, "autograder.checks.came_later", types.ModuleType("autograder.checks.came_later"))
    assert integrity._names_since(names, tag) == names + ["walked"] and walked == [1]


@in_child
def test_integrity_keeps_the_graders_functions_and_registries():
    import autograder.checks.common as common
    from autograder.engine.sandbox import learner_requests

    integrity.record()
    assert integrity.PROBES == common.PROBES and integrity.PROBES is not common.PROBES
    check = learner_requests.serve.__defaults__[0]
    assert check is integrity.changed and check() == []
    # code and defaults of the grader's functions (the checkpoint's and the serving loop's too) stay as they are
    for target, attribute, value in [(integrity.changed, "__code__", (lambda _record=None: []).__code__),
                                     (integrity.changed, "__defaults__", (None,)),
                                     (learner_requests.serve, "__defaults__", (lambda: [], {})),
                                     (common.function_facts.__wrapped__, "__code__", (lambda obj: {}).__code__),
                                     (integrity._guard, "__defaults__", (frozenset(),) * 2 + (id, RuntimeError))]:
        with pytest.raises(RuntimeError, match="cannot be changed"):
            setattr(target, attribute, value)
    # a second record (after an answer's changes, say) changes nothing
    name = next(iter(common.PROBES))
    common.PROBES[name] = lambda *args: {}
    integrity.record()
    assert integrity.PROBES[name] is not common.PROBES[name]
    assert "autograder.checks.common.PROBES (entries)" in check()
    integrity.changed = lambda: []
    learner_requests.OPERATIONS["probe"] = lambda *args: ({}, {})
    found = check()
    assert "autograder.engine.sandbox.integrity.changed" in found
    assert "autograder.engine.sandbox.learner_requests.OPERATIONS (entries)" in found


def test_learner_reports_facts_a_tensor_cannot_answer_for():
    """The facts sent with a tensor come from PyTorch's C accessors: a subclass's grad_fn property and a
    TorchFunctionMode answering the getters change nothing, and a subclass is reported as not plain."""
    from torch.overrides import TorchFunctionMode

    from autograder.engine.sandbox import learner_requests

    class Lookalike:
        pass

    class Disguised(torch.Tensor):
        @property
        def grad_fn(self):
            return Lookalike()

    class Answers(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") == "__get__":
                return Lookalike()
            return func(*args, **(kwargs or {}))

    x = torch.randn(3, requires_grad=True)
    disguised = (x * 2).as_subclass(Disguised)
    with Answers():
        with learner_requests._NO_TORCH_FUNCTION():
            facts = [learner_requests._facts(t, {}) for t in (x * 3, disguised)]
    assert facts[0]["fn"] == "MulBackward0" and facts[0]["plain"] and facts[0]["rg"] and not facts[0]["leaf"]
    assert facts[1]["fn"] == "AliasBackward0" and not facts[1]["plain"] and facts[1]["cls"] == "Disguised"


@pytest.mark.skipif(not seccomp.available(), reason="libseccomp on x86_64 Linux")
@pytest.mark.parametrize("forks", ["notify", "deny"])
def test_every_refused_call_is_one_libseccomp_knows(forks):
    """A misspelt or unknown name would be skipped, and the call allowed: every name resolves."""
    f = seccomp.build(seccomp.library(), 1234, forks)
    try:
        assert f.skipped == []
    finally:
        f.release()


def _bpf(f) -> bytes:
    """The BPF program libseccomp generates for a filter (what the kernel would load)."""
    import tempfile

    with tempfile.TemporaryFile() as out:
        assert f.lib.seccomp_export_bpf(ctypes.c_void_p(f.ctx), out.fileno()) == 0
        out.seek(0)
        return out.read()


@pytest.mark.skipif(not seccomp.available(), reason="libseccomp on x86_64 Linux")
@pytest.mark.parametrize("forks", ["notify", "deny"])
@pytest.mark.parametrize("pid", [1, 2, 3, 77, 4_194_303])
def test_a_filter_from_the_prebuilt_context_is_the_one_built_whole(forks, pid, monkeypatch):
    """The root builds both filters but their pid's rules once; a sandbox adds its pid's: the program the kernel
    loads is the very one a filter built whole would give, byte for byte."""
    monkeypatch.setattr(seccomp, "_PREBUILT", {})
    whole = seccomp.build(seccomp.library(), pid, forks)
    seccomp.prebuild()
    assert set(seccomp._PREBUILT) == {"notify", "deny"}
    from_prebuilt = seccomp.build(seccomp.library(), pid, forks)
    try:
        assert forks not in seccomp._PREBUILT  # taken: a second filter in this process builds whole again
        assert from_prebuilt.skipped == []
        assert _bpf(from_prebuilt) == _bpf(whole)
    finally:
        whole.release()
        from_prebuilt.release()
        for f in seccomp._PREBUILT.values():
            f.release()


@pytest.mark.parametrize("low, high", [(1, 1), (1, 2), (1, 3), (5, 77), (1, 4_194_303), (2, 0)])
def test_prefix_blocks_cover_exactly_the_interval(low, high):
    """kill's rule is "above pid, or in [1, pid - 1]" as masked comparisons: every value of the interval, and no
    other near it, falls in one block."""
    blocks = seccomp.prefix_blocks(low, high)
    probe = range(0, min(high, 5000) + 64)
    assert [x for x in probe if any(x & mask == value for mask, value in blocks)] == \
        [x for x in probe if low <= x <= high]
    if high >= low:
        assert any(high & mask == value for mask, value in blocks)
    assert len(blocks) <= 2 * max(high, 1).bit_length()


def test_warm_ups_are_chosen_from_the_tests_text_and_run_once():
    from autograder.engine.sandbox import warm

    assert warm.needed(["check.sin_opcheck(numpy_sin)", "check.values(Square)"]) == ["opcheck"]
    assert warm.needed(["check.jacfwd(Softplus)"]) == ["forward-ad"]
    assert warm.needed(["check.values(Square)"]) == []
    first = warm.run(["forward-ad", "no-such-warm-up"])
    assert warm.run(["forward-ad"]) == [] and first in ([], ["forward-ad"])


def test_a_class_root_prepares_for_many_notebooks_and_a_single_grade_starts_sooner(monkeypatch):
    """autograde's root runs every warm-up and maps its memory in huge pages once (root.prepare); one notebook's
    grade starts a root with forward mode only (its judge runs the rest it needs)."""
    from autograder.engine import grading
    from autograder.engine.sandbox import handle, warm

    assert grading.new_sandbox(for_a_class=True).for_a_class is True
    assert grading.new_sandbox().for_a_class is False
    from autograder.checks import preload  # the warm-ups the course names for its root are the engine's
    assert preload.WARM_UPS == ["forward-ad"] and set(preload.WARM_UPS) <= set(warm.RUN)
    started = []

    class Popen:
        def __init__(self, argv, **kwargs):
            started.append((argv[-1], kwargs["start_new_session"]))

    monkeypatch.setattr(handle.subprocess, "Popen", Popen)
    kernels = handle.RootKind(own_session=True, warm_ups=("opcheck", "os.system('x')"))  # a self-check's root
    for kind in (handle.RootKind(for_a_class=True), handle.RootKind(), kernels):
        monkeypatch.setattr(handle, "_root", {})
        handle._start_root(kind)
        handle._root["control"].close()
    grader = os.getpid()  # the root watches for the end of the process that started it
    assert re.search(rf"root_main\(\d+, True, \[\], {grader}\)$", started[0][0]) and started[0][1] is False
    assert re.search(rf"root_main\(\d+, False, \[\], {grader}\)$", started[1][0]) and started[1][1] is False
    # a kernel's root: its own session, and only the names of warm-ups the engine knows reach its command line
    assert re.search(rf"root_main\(\d+, False, \['opcheck'\], {grader}\)$", started[2][0]) and started[2][1] is True


def test_the_roots_start_up_is_a_declared_list():
    """root.prepare runs STARTUP in order: the course (its checks, whose probes register) before the warm-ups it
    names and before the integrity record; that record last before the heap is frozen and collapsed."""
    from autograder.engine.sandbox import root

    names = [step.__name__ for step in root.STARTUP]
    assert names.index("_libraries") < names.index("_course") < names.index("_warm_ups") < names.index("_integrity")
    assert names[-3:] == ["_integrity", "_freeze", "_huge_pages"]


def test_a_graph_id_is_never_reused_after_a_release_dropped_others():
    from autograder.engine.sandbox import learner_requests

    first = learner_requests.new_graph(("call",))
    kept = learner_requests.new_graph(("vjp with create_graph",))
    learner_requests.GRAPHS.pop(first)  # a release drops the recorded call's graph, not the vjp's
    third = learner_requests.new_graph(("next call",))
    assert third not in (first, kept) and learner_requests.GRAPHS[kept] == ("vjp with create_graph",)
    for graph in (kept, third):
        learner_requests.GRAPHS.pop(graph)
