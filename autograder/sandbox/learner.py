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
import signal
import socket
import sys
import tempfile
import time
import warnings

import torch

from autograder.sandbox import cells, cgroup, codec, confine, integrity, mirror, protocol, seccomp, world
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
    """A class or function of autograder.checks.* or autograder.shared (FakeCtx), by "module:qualname" (a Ref,
    or a stand-in ctx's class)."""
    module, _, name = path.partition(":")
    if not (module in ("autograder.checks", "autograder.shared") or module.startswith("autograder.checks.")):
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
    from autograder.shared import Mistake

    base = next((b.__name__ for b in codec.ERROR_BASES if isinstance(error, b)), "")
    try:
        message = str(error)[:4000]
    except BaseException:  # noqa: BLE001
        message = ""
    info = {"type": type(error).__name__[:200], "base": base, "message": message,
            "where": cells.answer_line(error)[:4000]}
    if isinstance(error, Mistake):
        try:
            info["code"] = str(error.code)[:200]
        except BaseException:  # noqa: BLE001
            info["code"] = "exception"
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
        t, leaf = mirror.local_input(t, node.get("rg") is True, node.get("leaf") is not False or type(index) is not int)
        if leaf is not None:
            LEAVES[index] = leaf
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
    before = mirror.Before(inputs)
    with torch.set_grad_enabled(bool(message.get("grad"))):
        out = fn(*args, **kwargs)
    outputs = _tensors(out, [])
    graph = None
    if message.get("record") and any(o.requires_grad for o in outputs):
        graph = len(GRAPHS) + 1
        GRAPHS[graph] = (inputs, outputs, _leaves(created))
    same = mirror.identities(inputs, outputs)
    result = {"out": out, "graph": graph, "changed": mirror.changed(inputs, before), "ctx": _ctx_states(ctxs),
              "bumped": mirror.bumped(inputs, before), "rebased": mirror.rebased(inputs, outputs, before, same)}
    return result, same


def op_vjp(message: dict, created: dict, ctxs: list) -> tuple:
    """Gradients of a recorded graph's outputs with respect to its inputs, weighted by `grads`."""
    inputs, outputs, leaves = GRAPHS[message["graph"]]
    mirror.apply_judge_changes(inputs, outputs, message.get("dirty", {}), message.get("dirty_outputs", {}))
    grads = message["grads"]
    before = mirror.Before(inputs)
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
    return {"grads": result, "graph": graph, "changed": mirror.changed(inputs, before),
            "bumped": mirror.bumped(inputs, before)}, {}


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


_CLONE_PARENT = 0x00008000


def starter_main(requests: socket.socket, job: dict, workdir: str, read_roots: list) -> None:
    """The learner's starter: a fork of the judge taken before the judge read any test cell. For each request
    it starts a learner sandbox as the judge's own child (clone with CLONE_PARENT), hands the judge that
    sandbox's two channels and pid, and waits for the next request; it leaves when the judge does."""
    keep = requests.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, 4096)
    while True:
        try:
            if not requests.recv(16):
                os._exit(0)
        except OSError:
            os._exit(0)
        pid, fds, control = spawn_sandbox(job, workdir, read_roots, sibling=True, close=(requests,))
        try:
            if pid > 0:
                socket.send_fds(requests, [json.dumps({"pid": pid}).encode()], [fds.fileno(), control.fileno()])
            else:
                requests.send(b'{"pid": -1}')
        except OSError:
            os._exit(0)
        fds.close()
        control.close()


def spawn_sandbox(job: dict, workdir: str, read_roots: list, sibling: bool, close=()) -> tuple:
    """Start a learner sandbox: (pid, the judge's end of its descriptor channel, of its control channel).
    `sibling` (the starter's way): a clone with CLONE_PARENT, so the sandbox is the judge's own child, not the
    caller's; otherwise a plain fork of the caller (the judge itself, where clone is not available). `close`:
    the caller's sockets the sandbox must not inherit."""
    # The descriptor channel keeps message boundaries where the kernel offers it (Linux); its messages are small.
    kind = socket.SOCK_SEQPACKET if confine.linux() else socket.SOCK_STREAM
    fds, fds_theirs = socket.socketpair(socket.AF_UNIX, kind)
    control, control_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    judge = os.getppid()
    pid = confine.LIBC.syscall(56, _CLONE_PARENT | signal.SIGCHLD, 0, 0, 0, 0) if sibling else os.fork()
    if pid == 0:
        if sibling:
            confine.die_with_parent(judge)
        for own in (fds, control, *close):
            own.close()
        try:
            learner_main(fds_theirs, control_theirs, job, workdir, read_roots)
        finally:
            os._exit(70)
    fds_theirs.close()
    control_theirs.close()
    return pid, fds, control


def learner_main(fds: socket.socket, control: socket.socket, job: dict, workdir: str, read_roots: list) -> None:
    """The learner's outermost process (a fork of the judge; it runs no learner code): a session of its own,
    an identity that owns nothing (where the grader is root), the namespaces, a reaper as PID 1 of the new
    PID namespace, and the template as PID 2 (not 1: the namespace's init ignores the signals it sends
    itself, and `os.kill(os.getpid(), 9)` must end it). It waits for the template and ends as it ended, so
    the judge, whose own fork this is, reads the template's fate from its own child."""
    os.setsid()  # a process group the judge kills as one; seccomp keeps every descendant in it
    confine.die_with_parent()  # (the starter's path checked its parent already; a plain fork's is the judge)
    limits = job["limits"]
    group = job.get("memory_group")
    joined = bool(group) and cgroup.MemoryGroup("", group).join(os.getpid())  # all it forks is counted there
    facts: dict = {"namespaces": False, "why": "not asked for"}
    if limits["isolation"] == "full":
        facts = world.enter_namespaces()
    facts["memory_cgroup"] = joined
    supervisor = os.getpid()
    reaper = os.fork() if facts.get("namespaces") else None
    if reaper == 0:
        confine.die_with_parent()  # PID 1: when it goes, the kernel kills everything in the namespace
        _reap_forever()
    pid = os.fork()
    if pid == 0:
        confine.die_with_parent(None if facts.get("namespaces") else supervisor)  # (its parent is outside its PID ns)
        template_main(fds, control, job, workdir, read_roots, facts)
        os._exit(70)
    fds.close()
    control.close()
    _quiet()
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            os._exit(70)
        except InterruptedError:
            continue
    if reaper:
        os.kill(reaper, signal.SIGKILL)  # the namespace's init: everything left in it goes too
        os.waitpid(reaper, 0)
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def _quiet(keep=()) -> None:
    """Standard streams to /dev/null and every other descriptor closed, but those in `keep`."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, 4096)


def _reap_forever() -> None:
    """PID 1 of the learner's PID namespace: reaps what the template leaves behind, and nothing else."""
    _quiet()
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that pause() returns when an orphan ends
    while True:
        try:
            os.wait()
        except ChildProcessError:
            signal.pause()
        except InterruptedError:
            pass


def template_main(fds: socket.socket, control: socket.socket, job: dict, workdir: str, read_roots: list,
                  facts: dict) -> None:
    """Confine this process, say so (the only message sent before learner code runs), run the cells,
    report what they defined, then fork a copy per test."""
    limits = job["limits"]
    uid = world.learner_ids(os.getpid())  # None unless the grader is root
    isolation = {"level": limits["isolation"], "namespaces": bool(facts.get("namespaces")),
                 "identity": "unallocated" if uid is not None else "grader's", "read_only_root": False,
                 "folder_quota": False, "memory_cgroup": bool(facts.get("memory_cgroup"))}
    if facts.get("why"):
        isolation["namespaces_refused"] = str(facts["why"])[:200]
    roots, folder = list(read_roots), workdir
    if isolation["namespaces"]:
        links = world.symlinks_on_the_way(world.unresolved_paths())
        built = world.enter_fresh_root(workdir, [*read_roots, *world.DEVICES], links, limits["folder_bytes"], uid)
        isolation.update(read_only_root=built["read_only_root"], own_proc=bool(built.get("own_proc")),
                         folder_quota=bool(built.get("folder_quota")))
        if built.get("why"):
            isolation["root_refused"] = built["why"]
        if built["read_only_root"]:
            folder = world.FOLDER
        if isolation["own_proc"]:
            roots.append("/proc")  # only this sandbox's processes are in it
    if uid is not None:
        if folder == workdir:
            os.chown(workdir, uid, uid)  # its folder, where no namespace gave it one of its own
        world.become(uid)
    elif isolation["namespaces"]:
        isolation["capabilities"] = not world.drop_capabilities()  # those its user namespace granted
    os.chdir(folder)
    clean_environment(folder)
    tempfile.tempdir = folder
    confine.limit_resources(limits["memory_mb"], limits["file_bytes"], confine.LEARNER_FILES)
    _quiet(keep=(fds.fileno(), control.fileno()))
    listener = None
    if limits["isolation"] != "none":
        isolation["landlock"] = confine.install_landlock(roots, [folder], [os.devnull])
        listener = seccomp.install("notify")
    else:
        isolation["landlock"] = 0
    isolation["seccomp"] = listener is not None
    send_fd(fds, json.dumps({"op": "hello", "isolation": isolation}).encode(), listener if listener else 0)
    if listener:
        os.close(listener)
    out = CappedText(limits["output_bytes"])
    sys.stdout = sys.stderr = out
    integrity.record()  # after root.prepare() imported every check module: the probes are registered
    start = time.perf_counter()
    reports = Channel(control, protocol.MAX_CONTROL_FRAME)
    names, failures = run_cells(job["cells"])
    _send_control(reports, {"op": "ready", "failures": failures, "output": out.value()[-4000:],
                            "names": _name_entries(names), "seconds": round(time.perf_counter() - start, 4)})
    fork_per_test(fds, reports)


# The learner's whole environment (the C one too: os.environ writes through putenv/unsetenv). Nothing of the
# grader's: no token, password or seed; locale and time zone only, which a library may read.
LEARNER_ENVIRONMENT = {"PATH": "/usr/local/bin:/usr/bin:/bin", "USER": "learner", "LOGNAME": "learner",
                       "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "OMP_THREAD_LIMIT": "1",
                       "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
_KEPT = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")


def clean_environment(folder: str) -> None:
    kept = {k: os.environ[k] for k in _KEPT if k in os.environ}
    os.environ.clear()
    os.environ.update(LEARNER_ENVIRONMENT, **kept, HOME=folder, TMPDIR=folder, MPLCONFIGDIR=folder)


def _send_control(reports: Channel, message: dict) -> None:
    reports.send(message, [])


def _name_entries(names: dict) -> dict:
    """How the judge gets the answers' names: plain data (a dict of labels, a number) by value while the
    protocol's budget lasts, everything else as a handle."""
    entries, budget = {}, protocol.MAX_VALUES_CHARS
    for name, obj in list(names.items())[:protocol.MAX_NAMES]:
        if len(name) > 200:
            continue
        handle = handle_of(obj)
        entry = {"h": handle.id, "type": str(handle.info["type"])[:200], "callable": handle.info["callable"]}
        if "name" in handle.info:
            entry["name"] = handle.info["name"][:200]
        try:
            header, buffers = codec.encode(obj)
            size = len(json.dumps(header)) if not buffers else protocol.MAX_VALUE_CHARS + 1
        except (TypeError, RecursionError, ValueError):
            size = protocol.MAX_VALUE_CHARS + 1
        if size <= min(protocol.MAX_VALUE_CHARS, budget):
            entry["value"] = header
            budget -= size
        entries[name] = entry
    return entries


def run_cells(job_cells: list) -> tuple[dict, list]:
    """Run the setup and answer cells; the names the answers defined, and what each cell that raised raised
    (as data: the judge describes it)."""
    namespace = {"__name__": "__main__", "__builtins__": builtins.__dict__, "get_ipython": cells.NoIPython}
    # Compile every cell before any runs: answer code cannot change how later cells are read.
    compiled = [(label, cells.compile_cell(source, label)) for label, source in job_cells]
    answer_names, failures = {}, []
    for label, code in compiled:
        before = dict(namespace)
        error = None
        if not isinstance(code, cells.Outcome):  # a syntax error: the judge finds it itself
            try:
                exec(code, namespace)
            except BaseException as raised:  # noqa: BLE001 - every failure is a fact for the judge
                error = raised
        if label.startswith("answer"):
            answer_names.update({k: v for k, v in namespace.items() if k not in before or before[k] is not v})
        if error is not None:
            failures.append({"cell": label[:200], "error": _error(error)})
            if not label.startswith("answer"):
                break  # a broken setup cell is the course's fault: the judge reports it as such
    return {k: v for k, v in answer_names.items() if not k.startswith("__")}, failures


def fork_per_test(fds: socket.socket, reports: Channel) -> None:
    """Each time the judge asks (on `fds`, with the test's socket attached), fork one copy; report that it
    was forked, then how it ended. The judge never acts on a pid: it kills this whole sandbox if need be."""
    while True:
        try:
            message, fd = recv_fd(fds)
        except OSError:
            os._exit(0)
        if not message or fd is None:
            os._exit(0)
        try:
            pid = os.fork()  # the judge allows exactly this one through its seccomp listener
        except OSError:
            pid = -1
        if pid == 0:
            confine.die_with_parent()  # the template
            fds.close()
            reports.close()
            seccomp.install("deny")
            serve(Channel(socket.socket(fileno=fd)))
            os._exit(0)
        os.close(fd)
        _send_control(reports, {"op": "forked", "ok": pid > 0})
        if pid < 0:
            continue
        _, status = os.waitpid(pid, 0)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        _send_control(reports, {"op": "ended", "status": status, "peak_mb": round(peak_mb, 1)})
