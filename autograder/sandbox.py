"""Run one test of one submission in a fresh, limited process, and report what happened.

The zygote is a long-lived process that imports torch, NumPy and the checks once (about 2 s) and warms
up autograd, and then never runs student code itself. For every test it forks a child that:

1. limits itself (memory, output, file size, no new processes, no network, no reading the instructor's
   files or the gradebook: a Python audit hook that cannot be removed once installed);
2. runs the notebook's setup cells and the student's answer cells;
3. proves that student code left the trusted state untouched (the functions the checks use, builtins,
   `sys.modules`), receives the test source only now (so student code never sees it), runs it, and
   proves the state untouched once more;
4. reports passed / failed / error with plain feedback over a pipe, tagged with a nonce the child only
   receives after student code ran. The zygote enforces the time limit and notices a child that died.

A fork costs a few milliseconds and shares nothing with other students: every test starts from the
zygote's pristine memory. The zygote holds no secret: it receives each test's source per request.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import resource
import secrets
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

# --------------------------------------------------------------------------------------------- protocol


def _send(stream, obj) -> None:
    data = pickle.dumps(obj)
    stream.write(struct.pack("!I", len(data)) + data)
    stream.flush()


def _recv(stream):
    header = stream.read(4)
    if len(header) < 4:
        raise EOFError("sandbox process closed its channel")
    (size,) = struct.unpack("!I", header)
    return pickle.loads(stream.read(size))


@dataclass
class Limits:
    seconds_per_test: float = 60.0     # wall time for answers + one test (torch.compile tests need ~15 s)
    memory_mb: int = 1536              # address space added on top of the zygote's own (Binder has 2 GB)
    output_bytes: int = 64_000         # captured stdout/stderr per test; the rest is dropped
    file_bytes: int = 32_000_000       # largest file the child may write (in its own temp folder)


@dataclass
class Outcome:
    status: str                 # passed | failed | error | timeout
    feedback: str = ""          # plain words for the learner
    mistake: str = ""           # stable id of the mistake (failed checks) or of the fault
    output: str = ""            # what the answer cells printed (truncated)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)


@dataclass
class Job:
    cells: list                 # [(label, source)] setup and answer cells, in notebook order
    test_id: str
    test_source: str
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    protected: list = field(default_factory=list)   # folders the child may not read (solutions, gradebook)


# ----------------------------------------------------------------------------------------- the zygote

TRUSTED_MODULES = [
    "builtins", "sys", "os", "math", "torch", "torch.autograd", "torch.autograd.function",
    "torch.autograd.gradcheck", "torch.autograd.graph", "torch.testing", "torch.nn.functional",
    "torch.func", "torch.library", "torch.utils.checkpoint", "numpy", "numpy.testing",
]
TRUSTED_CLASSES = ["torch.Tensor", "torch.autograd.Function", "torch._C.TensorBase"]
STUDENT_FILE_PREFIX = "<answer"


def _prepare() -> None:
    """Everything the children share: imported once here, never touched by student code."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numpy  # noqa: F401
    import torch

    torch.set_num_threads(1)  # one thread per grading process; also keeps fork() safe with OpenMP
    import matplotlib  # noqa: F401  (answer or setup cells may import pyplot; ~0.3 s saved per test)
    import matplotlib.pyplot  # noqa: F401
    import torch.func  # noqa: F401
    import torch.library  # noqa: F401
    import torch.utils.checkpoint  # noqa: F401
    import autograder.checks as checks_pkg

    for module in sorted(p.stem for p in Path(checks_pkg.__file__).parent.glob("*.py")):
        if not module.startswith("_"):
            __import__(f"autograder.checks.{module}")
    # The first gradcheck in a process costs 0.3-0.5 s of lazy initialisation: pay it once, here.
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
    torch.autograd.grad((x.exp() * x).sum(), x, create_graph=True)


def _resolve(dotted: str):
    module, _, attr = dotted.rpartition(".")
    return getattr(sys.modules[module], attr)


def snapshot() -> dict:
    """Identity of everything a verdict depends on: module attributes, key class dicts, sys.modules."""
    state = {}
    for name in TRUSTED_MODULES:
        module = sys.modules.get(name)
        if module is None:
            continue
        state[("sys.modules", name)] = id(module)
        for attr, value in list(vars(module).items()):
            state[(name, attr)] = id(value)
    for dotted in TRUSTED_CLASSES:
        try:
            cls = _resolve(dotted)
        except (KeyError, AttributeError):
            continue
        for attr, value in list(vars(cls).items()):
            state[(dotted, attr)] = id(value)
    for name, module in list(sys.modules.items()):
        if name.startswith("autograder"):
            state[("sys.modules", name)] = id(module)
            for attr, value in list(vars(module).items()):
                state[(name, attr)] = id(value)
    return state


# Attributes that legitimately change while grading (our own output capture, exception bookkeeping).
_VOLATILE = {"__warningregistry__", "_base_seed", "stdout", "stderr", "stdin", "last_type", "last_value",
             "last_traceback", "last_exc", "_cache"}


def changed(before: dict, after: dict) -> list[str]:
    """Keys whose object was replaced or removed (new attributes, e.g. lazy imports, are fine)."""
    out = []
    for key, ident in before.items():
        if key[1] in _VOLATILE:
            continue
        if after.get(key) != ident:
            out.append(f"{key[0]}.{key[1]}" if key[0] != "sys.modules" else f"sys.modules[{key[1]!r}]")
    return out


def zygote_main() -> None:
    # Our channel is the original stdin/stdout; fds 0-2 then point elsewhere so stray prints can't corrupt it.
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    _prepare()
    trusted = snapshot()
    _send(channel_out, {"ready": True, "pid": os.getpid()})
    while True:
        try:
            job = _recv(channel_in)
        except EOFError:
            return
        if job is None:
            return
        try:
            outcome = _run_forked(job, trusted)
        except Exception as error:  # noqa: BLE001 - the zygote must answer every request
            outcome = Outcome("error", f"the grader failed on this test ({type(error).__name__}: {error})",
                              "grader-error")
        _send(channel_out, outcome)


def _run_forked(job: Job, trusted: dict) -> Outcome:
    start = time.monotonic()
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    workdir = tempfile.mkdtemp(prefix="grading-")
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(to_child_w)
            os.close(from_child_r)
            _child(job, trusted, to_child_r, from_child_w, workdir)
        except BaseException:  # noqa: BLE001 - report the grader's own failure instead of dying silently
            try:
                report = Outcome("error", "the grader failed: " + traceback.format_exc()[-1500:], "grader-error")
                os.write(from_child_w, (json.dumps({"phase": "answers-failed", "outcome": asdict(report)})
                                        + "\n").encode())
            except BaseException:  # noqa: BLE001
                pass
        finally:
            os._exit(70)
    os.close(to_child_r)
    os.close(from_child_w)
    nonce = secrets.token_hex(16)
    deadline = start + job.limits.seconds_per_test
    reader = _LineReader(from_child_r)
    outcome = None
    try:
        first = reader.read_message(deadline)
        if first is None:
            outcome = _dead_or_late(pid, deadline, "while running your answer cells")
        elif first.get("phase") == "answers-failed":
            outcome = Outcome(**first["outcome"])
        elif first.get("phase") != "answers-done":
            outcome = Outcome("error", "the grader's channel was tampered with by code in your answer cells.",
                              "channel-tampered")
        else:
            os.write(to_child_w, (json.dumps({"nonce": nonce, "source": job.test_source}) + "\n").encode())
            result = reader.read_message(deadline)
            if result is None:
                outcome = _dead_or_late(pid, deadline, "while the test was running")
            elif result.get("nonce") != nonce:
                outcome = Outcome("error", "the grader's channel was tampered with by code in your answer cells.",
                                  "channel-tampered")
            else:
                outcome = Outcome(**result["outcome"])
                if first.get("output"):
                    outcome.output = first["output"]
    finally:
        for fd in (to_child_w, from_child_r):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _reap(pid)
        _rmtree(workdir)
    outcome.seconds = round(time.monotonic() - start, 4)
    outcome.details["child_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    outcome.details["zygote_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return outcome


def _dead_or_late(pid: int, deadline: float, when: str) -> Outcome:
    if time.monotonic() >= deadline:
        return Outcome("timeout", f"time limit exceeded {when}: is there an infinite loop, or work far larger "
                                  "than the exercise needs?", "timeout")
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    status = _reap(pid)
    if status is None:
        how = "ended"
    elif os.WIFSIGNALED(status):
        how = f"was killed by signal {os.WTERMSIG(status)}"
    else:
        how = f"exited with code {os.WEXITSTATUS(status)}"
    return Outcome("error", f"the process running your code {how} {when} (os._exit, sys.exit, a crash, or "
                            "the memory limit). Nothing was graded for this test.", "process-died",
                   details={"exit": how})


def _reap(pid: int):
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


class _LineReader:
    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = b""

    def read_message(self, deadline: float):
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
            if len(self.buffer) > 8_000_000:
                return {"phase": "garbage"}
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            return {"phase": "garbage"}
        return message if isinstance(message, dict) else {"phase": "garbage"}


def _rmtree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


# ------------------------------------------------------------------------------------------ the child

class _CappedText(io.TextIOBase):
    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def write(self, text):
        text = str(text)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        if len(text) > max(room, 0):
            self.truncated = True
        return len(text)

    def flush(self):
        pass

    def value(self) -> str:
        out = "".join(self.parts)
        return out + ("\n[output truncated]" if self.truncated else "")


def _child(job: Job, trusted: dict, from_parent: int, to_parent: int, workdir: str) -> None:
    os.setsid()  # own process group: nothing it starts outlives it
    os.chdir(workdir)
    os.environ["TMPDIR"] = workdir
    os.environ["HOME"] = workdir
    tempfile.tempdir = workdir
    _limit_resources(job.limits)
    out = _CappedText(job.limits.output_bytes)
    sys.stdout = sys.stderr = out
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import autograder.checks.common as common

    common.set_base_seed(job.seed)
    channel = os.fdopen(to_parent, "w")
    inbox = os.fdopen(from_parent, "r")
    guard = _install_audit_hook(job.protected, workdir)

    namespace = {"__name__": "__main__", "__builtins__": __builtins__, "get_ipython": _no_ipython}
    failure = None
    for label, source in job.cells:
        failure = _run_cell(source, f"{STUDENT_FILE_PREFIX}:{label}>" if label.startswith("answer")
                            else f"<{label}>", namespace, label)
        if failure is not None and not label.startswith("answer"):
            break  # a broken setup cell is the course's fault and is reported as such
        if failure is not None:
            failure.feedback = f"your answer cell `{label}` raised an error: {failure.feedback}"
            # keep going: one broken answer cell must not sink the tests of the others
    answers_output = out.value()
    tampered = changed(trusted, snapshot())
    if tampered:
        channel.write(json.dumps({"phase": "answers-failed", "outcome": asdict(_tamper(tampered))}) + "\n")
        channel.flush()
        return
    channel.write(json.dumps({"phase": "answers-done", "output": answers_output[-4000:]}) + "\n")
    channel.flush()
    out.parts.clear()
    guard["test_running"] = True
    message = json.loads(inbox.readline())
    check_start = time.perf_counter()
    outcome = _run_cell(message["source"], f"<test:{job.test_id}>", dict(namespace), job.test_id,
                        is_test=True)
    check_seconds = time.perf_counter() - check_start
    if outcome is None:
        outcome = Outcome("passed")
    if failure is not None and outcome.status != "passed" and outcome.mistake in ("not-defined", "name-error"):
        outcome = failure  # the real cause: the answer cell that failed to define the name
    tampered = changed(trusted, snapshot())
    if tampered:
        outcome = _tamper(tampered)
    outcome.details["check_seconds"] = round(check_seconds, 4)
    channel.write(json.dumps({"nonce": message["nonce"], "outcome": asdict(outcome)}) + "\n")
    channel.flush()
    os._exit(0)  # skip interpreter teardown: no atexit handler or finaliser of student code runs


def _tamper(names: list[str]) -> Outcome:
    shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
    return Outcome("failed", f"your code replaced or removed objects the grader relies on ({shown}). "
                             "Tests do not run on a modified PyTorch, NumPy or Python; remove that code.",
                   "tampering", details={"changed": names[:50]})


def _no_ipython():
    class _Shell:
        def run_line_magic(self, *args, **kwargs):
            return None

        run_cell_magic = system = run_line_magic

        def __getattr__(self, name):
            raise AttributeError(f"get_ipython().{name} is not available while grading")

    return _Shell()


def _transform(source: str) -> str:
    """IPython syntax (magics, `!cmd`) to plain Python, so a stray `%matplotlib inline` is harmless."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def _run_cell(source: str, filename: str, namespace: dict, label: str, is_test: bool = False) -> Outcome | None:
    from autograder.checks.common import Mistake

    try:
        code = compile(_transform(source), filename, "exec")
        exec(code, namespace)
    except Mistake as mistake:
        return Outcome("failed", mistake.message, mistake.code)
    except AssertionError as error:
        return Outcome("failed", str(error) or "a check failed", "assertion")
    except NotImplementedError:
        return Outcome("failed" if is_test else "error",
                       "not implemented yet (the code still raises NotImplementedError).", "not-implemented")
    except MemoryError:
        return Outcome("error", "ran out of memory: the grading limit was exceeded.", "memory-limit")
    except NameError as error:
        return Outcome("error", f"{error}: define it in its answer cell (and keep the name exactly).",
                       "name-error")
    except SyntaxError as error:
        return Outcome("error", f"syntax error in {label}, line {error.lineno}: {error.msg}", "syntax-error")
    except PermissionError as error:
        return Outcome("error", f"{error}", "sandbox-denied")
    except SystemExit as error:
        return Outcome("error", f"the code called exit({error.code}); nothing was graded after it.", "exit")
    except BaseException as error:  # noqa: BLE001 - every student failure is a result, not a crash
        text = str(error)
        if "can't allocate memory" in text or "DefaultCPUAllocator" in text:
            return Outcome("error", "ran out of memory: the grading limit was exceeded.", "memory-limit")
        where = _student_frame(error)
        return Outcome("error", f"{type(error).__name__}: {text.splitlines()[0][:50000] if text else ''}{where}",
                       "exception", details={"exception": type(error).__name__})
    return None


def _student_frame(error: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(STUDENT_FILE_PREFIX)]
    if not frames:
        return ""
    last = frames[-1]
    return f" (in {last.filename.strip('<>').split(':', 1)[-1]}, line {last.lineno}: {last.line})"


def _limit_resources(limits: Limits) -> None:
    current = _vm_size()
    memory = current + limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails instead of killing us


def _vm_size() -> int:
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


# Events student code may never cause: new processes, network, native memory access, introspection of
# other frames and objects (where the grader's nonce and the test live).
_DENIED = {
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "os.kill", "os.killpg", "signal.pthread_kill", "pty.spawn", "socket.connect", "socket.bind",
    "socket.getaddrinfo", "socket.sendto", "ctypes.dlopen", "ctypes.dlsym", "ctypes.addressof",
    "ctypes.string_at", "ctypes.wstring_at", "ctypes.cdata", "ctypes.call_function", "ctypes.PyObj_FromPtr",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys.settrace",
    "sys.setprofile", "sys._current_exceptions", "_thread.start_new_thread", "os.chroot", "os.setuid",
    "mmap.__new__", "os.truncate", "winreg.OpenKey", "sys.addaudithook",
}
_FRAME_EVENTS = {"sys._getframe", "sys._getframemodulename"}
_FRAME_ATTRS = {"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "__globals__", "f_locals",
                "f_globals", "gi_code", "__closure__"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _install_audit_hook(protected: list, workdir: str) -> dict:
    protected = [os.path.realpath(p) for p in protected]
    workdir = os.path.realpath(workdir)
    allowed_callers = tuple(os.path.dirname(os.path.realpath(m.__file__)) + os.sep
                            if m.__file__.endswith("__init__.py") else os.path.realpath(m.__file__)
                            for m in _trusted_packages())
    state = {"busy": False, "test_running": False}

    def student_on_stack(depth: int = 2) -> tuple[bool, str]:
        frame = sys._getframe(depth)
        caller = frame.f_code.co_filename
        while frame is not None:
            if frame.f_code.co_filename.startswith(STUDENT_FILE_PREFIX):
                return True, caller
            frame = frame.f_back
        return False, caller

    def denied(what: str) -> PermissionError:
        return PermissionError(f"not allowed while grading: {what}")

    def hook(event, args):
        if state["busy"]:
            return
        state["busy"] = True
        try:
            if event == "open":
                path, mode, flags = args
                if isinstance(path, int) or path is None:
                    return
                real = os.path.realpath(os.fsdecode(path))
                if any(real == p or real.startswith(p + os.sep) for p in protected):
                    raise denied(f"reading {path}")
                writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (flags & _WRITE_FLAGS)
                if writing and not (real.startswith(workdir + os.sep) or real == os.devnull):
                    raise denied(f"writing {path} (only the temporary folder is writable)")
            elif event in ("os.listdir", "os.scandir", "os.remove", "os.rename", "os.rmdir", "shutil.rmtree",
                           "os.chmod", "os.symlink", "os.link", "os.mkdir", "os.utime", "os.chown"):
                path = args[0] if args else None
                if isinstance(path, (str, bytes, os.PathLike)):
                    real = os.path.realpath(os.fsdecode(path))
                    if any(real == p or real.startswith(p + os.sep) for p in protected):
                        raise denied(f"{event} on {path}")
                    if event != "os.listdir" and event != "os.scandir" and not real.startswith(workdir):
                        raise denied(f"{event} outside the temporary folder")
            elif event in _DENIED or event.startswith(("os.exec", "os.spawn")):
                raise denied(event)
            elif event in _FRAME_EVENTS or (event == "object.__getattr__" and len(args) > 1
                                             and args[1] in _FRAME_ATTRS):
                on_stack, caller = student_on_stack(2)
                if on_stack and not caller.startswith(allowed_callers):
                    raise denied(f"inspecting the grader's frames {event} {args[1:2] if event == 'object.__getattr__' else ''} {caller}")
            elif event in ("compile", "code.__new__", "function.__new__") :
                on_stack, caller = student_on_stack(2)
                if on_stack and caller.startswith(STUDENT_FILE_PREFIX):
                    if event != "compile" or not str(args[1]).startswith(STUDENT_FILE_PREFIX):
                        raise denied("compiling code under another name")
        finally:
            state["busy"] = False

    sys.addaudithook(hook)
    return state


def _trusted_packages():
    """Code allowed to look at frames while student code is on the stack: libraries that do so for
    their own bookkeeping (torch.library records where an operator was defined, namedtuple its module)."""
    import collections
    import dataclasses
    import enum
    import functools
    import typing
    import warnings

    import numpy
    import torch

    import autograder

    return [torch, numpy, autograder, collections, dataclasses, enum, functools, typing, warnings]


# ------------------------------------------------------------------------------------ parent's handle

class Sandbox:
    """A zygote process and the channel to it. Use one per worker thread; `run` is not re-entrant."""

    def __init__(self, protected: list | None = None):
        self.protected = [str(p) for p in (protected or [])]
        self.process = None
        self.jobs_run = 0

    def start(self) -> "Sandbox":
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MPLBACKEND="Agg",
                   PYTHONDONTWRITEBYTECODE="1")
        self.process = subprocess.Popen([sys.executable, "-c", "from autograder.sandbox import zygote_main; zygote_main()"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
        hello = _recv(self.process.stdout)
        if not hello.get("ready"):
            raise RuntimeError("the grading sandbox failed to start")
        return self

    def run(self, job: Job) -> Outcome:
        if self.process is None or self.process.poll() is not None:
            self.start()
        job.protected = list(job.protected) + self.protected
        try:
            _send(self.process.stdin, job)
            outcome = _recv(self.process.stdout)
        except (EOFError, BrokenPipeError, OSError):
            # The zygote itself died (it never runs student code, so this is a machine problem such as
            # the OOM killer). Restart it for the next job and report this one as an error.
            self.close()
            return Outcome("error", "the grading process died while running this test; it was restarted.",
                           "grader-died")
        self.jobs_run += 1
        return outcome

    def close(self) -> None:
        if self.process is not None:
            # The zygote holds nothing worth a clean exit (tearing down torch takes seconds): kill it.
            self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                stream.close()
            self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

