"""The learner's process: runs the setup and answer cells once, then answers the judge's requests.

Its template process runs the cells, then, each time the judge asks, forks a copy of itself for one test
(the only fork its seccomp filter lets through, and only with the judge's leave). That copy serves the
test's requests over its own socket: call one of the learner's objects on tensors (recording the graph),
take a vector-Jacobian product through a recorded graph, read an attribute, or run one of the fixed probes
(`checks.common.probe`). Objects stay here and cross as handles; tensors cross by value.
"""

from __future__ import annotations

import _socket
import builtins
import io
import json
import os
import resource
import socket
import sys
import tempfile
import time
import warnings

import torch

from autograder.sandbox import cells, codec, confine, integrity
from autograder.sandbox import channel as _channel
from autograder.sandbox.channel import Channel, ChannelClosed, recv_fd, send_fd

OBJECTS: dict = {}      # handle id -> object
_IDS: dict = {}         # id(object) -> handle id
GRAPHS: dict = {}       # graph id -> (inputs, outputs, leaves) of a recorded call or vjp
LEAVES: dict = {}       # argument index -> the leaf behind that argument, for arguments with a history
CTXS: dict = {}         # ctx key -> this process's stand-in ctx


# ------------------------------------------------------------------------------------ handles, codec

def handle_of(obj) -> codec.Handle:
    key = id(obj)
    if key not in _IDS:
        _IDS[key] = len(OBJECTS) + 1
        OBJECTS[_IDS[key]] = obj
    info = {"type": type(obj).__name__, "callable": callable(obj)}
    name = getattr(obj, "__name__", None) if isinstance(obj, type) or callable(obj) else None
    if type(name) is str:
        info["name"] = name
    return codec.Handle(_IDS[key], info)


def resolve(handle_id: int, info: dict):
    """The object a handle names; `info["attr"] == "apply"` names its `apply` (see proxy.Remote)."""
    if handle_id not in OBJECTS:
        raise LookupError(f"unknown object {handle_id}")
    return OBJECTS[handle_id].apply if info.get("attr") == "apply" else OBJECTS[handle_id]


def checks_object(path: str):
    """A class or function of autograder.checks.*, by "module:qualname" (a Ref, or a stand-in ctx's class)."""
    module, _, name = path.partition(":")
    if not (module == "autograder.checks" or module.startswith("autograder.checks.")):
        raise TypeError("only the checks' own functions and classes are named by path")
    import importlib

    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _materialize(value, ctxs: list):
    """Decoded arguments -> objects: CtxState -> this process's stand-in ctx (the same one for the same key),
    each listed in `ctxs` as (key, ctx)."""
    if type(value) is codec.Ref:
        return checks_object(value.path)
    if type(value) is codec.CtxState:
        ctx = CTXS.get(value.key)
        if ctx is None:
            cls = checks_object(value.cls)
            ctx = CTXS[value.key] = cls.__new__(cls)
        vars(ctx).clear()
        vars(ctx).update({k: _materialize(v, ctxs) for k, v in value.state.items()})
        ctxs.append((value.key, ctx))
        return ctx
    if type(value) in (list, tuple):
        return type(value)(_materialize(v, ctxs) for v in value)
    if type(value) is dict:
        return {k: _materialize(v, ctxs) for k, v in value.items()}
    return value


_tensors = codec.tensors_in


def _ctx_states(ctxs: list) -> list:
    return [codec.CtxState(key, f"{type(c).__module__}:{type(c).__qualname__}", dict(vars(c))) for key, c in ctxs]


# Facts about a tensor read through PyTorch's own C accessors, bound before any learner code runs: a Tensor
# subclass's `grad_fn` property, a TorchFunctionMode answering for the getters, or a class whose metaclass
# answers `__name__` cannot change what is reported. (Under DisableTorchFunction the getters skip both.)
_NO_TORCH_FUNCTION = torch._C.DisableTorchFunction
_GRAD_FN = torch._C.TensorBase.__dict__["grad_fn"].__get__
_REQUIRES_GRAD = torch._C.TensorBase.__dict__["requires_grad"].__get__
_IS_LEAF = torch._C.TensorBase.__dict__["is_leaf"].__get__
_NUMEL = torch._C.TensorBase.numel
_STORAGE = torch._C.TensorBase.untyped_storage
_DATA_PTR = torch._C.StorageBase.data_ptr
_TYPE_NAME = type.__dict__["__name__"].__get__
_TYPE_DICT = type.__dict__["__dict__"].__get__
_PROXY_GET = type(type.__dict__).get
_TENSOR = torch.Tensor
_NODE = torch.autograd.function.BackwardCFunction
_type, _issubclass, _isinstance, _bool, _int = type, issubclass, isinstance, bool, int


def _facts(t, same: dict) -> dict:
    """What only this process knows about a tensor it sends: its node's real class (and, for a Function's
    node, which Function class it runs the backward of, as a handle), whether it is a plain torch.Tensor."""
    node = _GRAD_FN(t)
    kind = _type(node)
    facts = {"fn": _TYPE_NAME(kind) if node is not None else None, "rg": _bool(_REQUIRES_GRAD(t)),
             "leaf": _bool(_IS_LEAF(t)), "ptr": _int(_DATA_PTR(_STORAGE(t))) if _NUMEL(t) else 0,
             "plain": _type(t) is _TENSOR}
    if node is not None and _issubclass(kind, _NODE):
        forward_cls = _PROXY_GET(_TYPE_DICT(kind), "_forward_cls")
        if _isinstance(forward_cls, _type):
            facts["fwd"] = handle_of(forward_cls).id
    if not facts["plain"]:
        facts["cls"] = _TYPE_NAME(_type(t))
    if id(t) in same:
        facts["same"] = same[id(t)]
    return facts


def _reply(channel: Channel, value, same: dict | None = None) -> None:
    """Send `value`; tensors that are (by identity) an argument or output named in `same` say so."""
    same = same or {}
    with _NO_TORCH_FUNCTION():
        header, buffers = codec.encode({"ok": value}, handle_of, lambda t: _facts(t, same))
    channel.send(header, buffers)


def _error(error: BaseException, depth: int = 0) -> dict:
    """An exception as plain data, with what caused it (a few levels: `raise ... from`, or during handling)."""
    from autograder.checks.common import Mistake

    base = next((b.__name__ for b in codec.ERROR_BASES if isinstance(error, b)), "")
    try:
        message = str(error)[:4000]
    except BaseException:  # noqa: BLE001
        message = ""
    info = {"type": type(error).__name__, "base": base, "message": message, "where": cells.answer_line(error)}
    if isinstance(error, Mistake):
        info["code"] = str(error.code)
    cause = error.__cause__ or error.__context__
    if isinstance(cause, BaseException) and cause is not error and depth < 4:
        info["cause"] = _error(cause, depth + 1)
    return info


# ------------------------------------------------------------------------------------------- requests

def _decode_args(header, buffers, created: dict, ctxs: list):
    """Arguments of a request; each tensor becomes a local tensor (requires_grad as in the judge),
    the same local for the same judge tensor."""

    LEAVES.clear()

    def local(t, node):
        index = node.get("arg")
        if type(index) is int and index in created:
            return created[index]
        if node.get("rg") is True and (t.is_floating_point() or t.is_complex()):
            t = t.requires_grad_(True)
            if node.get("leaf") is False and type(index) is int:
                # The judge's tensor has a history, so ours has one too (a clone of a leaf): an in-place
                # Function (ctx.mark_dirty) may change it, as in one process; gradients go to the leaf.
                LEAVES[index], t = t, t.clone()
        if type(index) is int:
            created[index] = t
        return t

    return _materialize(codec.decode(header, buffers, resolve, local), ctxs)


def _leaves(created: dict) -> list:
    """The tensors gradients are taken with respect to: each argument, or the leaf behind it."""
    return [LEAVES.get(i, created[i]) for i in sorted(created)]


def op_call(message: dict, created: dict, ctxs: list) -> tuple:
    fn = resolve(message["h"], {"attr": message.get("attr")})
    args, kwargs = message["args"], message["kwargs"]
    inputs = [created[i] for i in sorted(created)]
    before = [t.detach().clone() for t in inputs]
    versions = [t._version for t in inputs]
    histories = [t.grad_fn for t in inputs]
    with torch.set_grad_enabled(bool(message.get("grad"))):
        out = fn(*args, **kwargs)
    outputs = _tensors(out, [])
    graph = None
    if message.get("record") and any(o.requires_grad for o in outputs):
        graph = len(GRAPHS) + 1
        GRAPHS[graph] = (inputs, outputs, _leaves(created))
    same = {id(t): ["arg", i] for i, t in enumerate(inputs)}
    same.update({id(t): ["out", j] for j, t in enumerate(outputs) if id(t) not in same})
    # An input changed in place with autograd watching (ctx.mark_dirty, x.mul_ under grad mode) and returned:
    # its history now ends at the call's node. Output j -> input i, for the judge to do the same to its input.
    rebased = {str(j): same[id(o)][1] for j, o in enumerate(outputs)
               if id(o) in same and same[id(o)][0] == "arg" and o.grad_fn is not histories[same[id(o)][1]]}
    result = {"out": out, "graph": graph, "changed": _changed(inputs, before), "ctx": _ctx_states(ctxs),
              "bumped": _bumped(inputs, versions), "rebased": rebased}
    return result, same


def _changed(inputs: list, before: list) -> dict:
    """New values of the inputs the learner's code changed in place (the judge mirrors them)."""
    changed = {}
    for i, (t, old) in enumerate(zip(inputs, before)):
        now = t.detach()
        if now.shape != old.shape or now.dtype != old.dtype or not torch.equal(now, old) and not bool(
                ((now == old) | (now.isnan() & old.isnan())).all()):
            changed[str(i)] = now.clone()
    return changed


def _bumped(inputs: list, versions: list) -> list:
    """The inputs whose version counter moved (an in-place op the counter saw; x.data.mul_() is not one)."""
    return [i for i, (t, version) in enumerate(zip(inputs, versions)) if t._version != version]


def op_vjp(message: dict, created: dict, ctxs: list) -> tuple:
    """Gradients of a recorded graph's outputs with respect to its inputs, weighted by `grads`."""
    inputs, outputs, leaves = GRAPHS[message["graph"]]
    for key, value in message.get("dirty", {}).items():
        with torch.no_grad():
            inputs[int(key)].copy_(value)  # the judge changed this input in place: so do we (version counter)
    for key, value in message.get("dirty_outputs", {}).items():
        with torch.no_grad():
            outputs[int(key)].copy_(value)
    grads = message["grads"]
    before = [t.detach().clone() for t in inputs]
    versions = [t._version for t in inputs]
    pairs = [(o, g if g is not None else torch.zeros_like(o)) for o, g in zip(outputs, grads)
             if o is not None and o.requires_grad]
    wanted = [i for i, t in enumerate(leaves) if t.requires_grad]
    create = bool(message.get("create_graph"))
    result = [None] * len(inputs)
    if pairs and wanted:
        # backward(), not grad(): like the judge's own backward it runs every node the outputs reach (a
        # once_differentiable error node among them), and the leaves here collect .grad.
        for i in wanted:
            leaves[i].grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_graph's note on reference cycles
            torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs], create_graph=create,
                                    retain_graph=True)
        for i in wanted:
            result[i], leaves[i].grad = leaves[i].grad, None
    graph = None
    if create:
        graph = len(GRAPHS) + 1
        GRAPHS[graph] = (inputs + [created[i] for i in sorted(created)], result, leaves + _leaves(created))
    return {"grads": result, "graph": graph, "changed": _changed(inputs, before),
            "bumped": _bumped(inputs, versions)}, {}


def op_probe(message: dict, created: dict, ctxs: list, _probes=integrity.PROBES) -> tuple:
    fn = _probes[message["name"]]  # the registry as it was before any answer ran (integrity.record)
    return fn(*message["args"], **message["kwargs"]), {}


def op_getattr(message: dict, created: dict, ctxs: list) -> tuple:
    return getattr(resolve(message["h"], {"attr": message.get("attr")}), message["name"]), {}


OPERATIONS = {"call": op_call, "vjp": op_vjp, "probe": op_probe, "getattr": op_getattr}


# A tampering report goes out through C-level primitives bound here, before any learner code ran (the codec, the
# channel, json and the socket class may be the very things an answer patched to rewrite it).
_SOCKET = _socket.socket
_SENDALL = _socket.socket.sendall
_EXIT = os._exit
_PACK_PREFIX = _channel._PREFIX.pack
_SHOWN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:()<>, -")
_TAMPERING = ("your code replaced or removed objects PyTorch or the grader rely on ({}). Tests do not run on a "
              "modified PyTorch, NumPy or Python; remove that code.")


def _tampering_frame(found: list) -> bytes:
    """The error reply that says so, written without the codec, json or anything an answer can patch."""
    shown = ", ".join(found[:5]) + (" ..." if len(found) > 5 else "")
    text = _TAMPERING.replace("{}", "".join([ch for ch in shown if ch in _SHOWN]))
    header = ('{"v": {"D": {"error": {"D": {"type": "Mistake", "base": "AssertionError", "message": "' + text
              + '", "where": "", "code": "tampering"}}}}, "sizes": []}').encode("ascii")
    return _PACK_PREFIX(len(header), 0) + header


def serve(channel: Channel, _changed=integrity.changed, _operations=OPERATIONS, _frame=_tampering_frame,
          _sendall=_SENDALL, _socket_type=_SOCKET, _exit=_EXIT, _isinstance=isinstance) -> None:
    """One test's requests, until the judge says `end` or closes the channel. Before every reply (an error
    too) the integrity checkpoint runs; if it finds a change, the report goes out and this copy ends."""
    while True:
        try:
            header, buffers = channel.recv()
        except (ChannelClosed, OSError, codec.CodecError):
            _exit(0)
        created: dict = {}
        ctxs: list = []
        failure = None
        try:
            message = _decode_args(header, buffers, created, ctxs)
            if type(message) is not dict or message.get("op") not in _operations:
                _exit(0)  # `end`, or nothing we know
            value, same = _operations[message["op"]](message, created, ctxs)
        except BaseException as error:  # noqa: BLE001 - the learner's failure is the judge's to read
            failure = error
        try:
            tampered = _changed()
        except BaseException:  # noqa: BLE001 - a checkpoint that cannot run is a finding too
            tampered = ["the integrity checkpoint"]
        if tampered:
            try:
                sock = channel.sock
                if _isinstance(sock, _socket_type):
                    _sendall(sock, _frame(tampered))
            finally:
                _exit(0)
        if failure is not None:
            header, buffers = codec.encode({"error": _error(failure)})
            channel.send(header, buffers)
            continue
        try:
            _reply(channel, value, same)
        except (TypeError, codec.CodecError) as error:
            header, buffers = codec.encode({"error": _error(TypeError(f"the result cannot be graded: {error}"))})
            channel.send(header, buffers)


# --------------------------------------------------------------------------------------- the template

class CappedText(io.TextIOBase):
    def __init__(self, limit: int):
        self.limit, self.parts, self.size, self.truncated = limit, [], 0, False

    def write(self, text):
        text = text if isinstance(text, str) else str(text)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        self.truncated |= len(text) > max(room, 0)
        return len(text)

    def value(self) -> str:
        return "".join(self.parts) + ("\n[output truncated]" if self.truncated else "")


def template_main(control: socket.socket, job: dict, workdir: str, read_roots: list) -> None:
    """In the forked learner process: confine, run the cells, report, then fork a copy per test."""
    os.setsid()  # its own process group, which seccomp then keeps every descendant in
    os.chdir(workdir)
    os.environ.update(TMPDIR=workdir, HOME=workdir)
    tempfile.tempdir = workdir
    limits = job["limits"]
    confine.limit_resources(limits["memory_mb"], limits["file_bytes"])
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    os.closerange(3, control.fileno())
    os.closerange(control.fileno() + 1, 4096)
    isolation = {"landlock": confine.install_landlock(read_roots, [workdir], [os.devnull])}
    listener = confine.install_seccomp("notify")
    isolation["seccomp"] = listener is not None
    send_fd(control, json.dumps({"op": "listener", "isolation": isolation}).encode(), listener if listener else 0)
    if listener:
        os.close(listener)
    out = CappedText(limits["output_bytes"])
    sys.stdout = sys.stderr = out
    import autograder.checks.common as common

    common.set_base_seed(job["seed"])
    integrity.record()
    start = time.perf_counter()
    names, failures = run_cells(job["cells"])
    report = {"op": "ready", "failures": failures, "output": out.value()[-4000:],
              "names": {name: _name_entry(obj) for name, obj in names.items()},
              "seconds": round(time.perf_counter() - start, 4)}
    control.sendall(json.dumps(report).encode())
    fork_per_test(control)


def _name_entry(obj) -> dict:
    """How the judge gets an answer's name: plain data (a dict of labels, a number) by value, else a handle."""
    entry = handle_of(obj).info | {"h": handle_of(obj).id}
    try:
        header, buffers = codec.encode(obj)
    except (TypeError, RecursionError):
        return entry
    if not buffers and len(json.dumps(header)) < 100_000:
        entry["value"] = header
    return entry


def run_cells(job_cells: list) -> tuple[dict, list]:
    """Run the setup and answer cells; the names the answers defined, and the answer cells that raised."""
    namespace = {"__name__": "__main__", "__builtins__": builtins.__dict__, "get_ipython": cells.NoIPython}
    # Compile every cell before any runs: answer code cannot change how later cells are read.
    compiled = [(label, cells.compile_cell(source, label)) for label, source in job_cells]
    answer_names, failures = {}, []
    for label, code in compiled:
        before = dict(namespace)
        failure = cells.run(code, namespace, label)
        if label.startswith("answer"):
            answer_names.update({k: v for k, v in namespace.items() if k not in before or before[k] is not v})
        if failure is not None:
            failures.append({"cell": label, "status": failure.status, "feedback": failure.feedback,
                             "mistake": failure.mistake, "setup": not label.startswith("answer")})
            if not label.startswith("answer"):
                break  # a broken setup cell is the course's fault: report it as such
    return {k: v for k, v in answer_names.items() if not k.startswith("__")}, failures


def fork_per_test(control: socket.socket) -> None:
    while True:
        try:
            message, fd = recv_fd(control)
        except OSError:
            os._exit(0)
        if not message or fd is None:
            os._exit(0)
        try:
            pid = os.fork()  # the judge allows exactly this one through its seccomp listener
        except OSError:
            pid = -1
        if pid == 0:
            control.close()
            confine.install_seccomp("deny")
            serve(Channel(socket.socket(fileno=fd)))
            os._exit(0)
        os.close(fd)
        control.sendall(json.dumps({"op": "forked", "pid": pid}).encode())
        if pid < 0:
            continue
        _, status = os.waitpid(pid, 0)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        control.sendall(json.dumps({"op": "ended", "status": status, "peak_mb": round(peak_mb, 1)}).encode())
