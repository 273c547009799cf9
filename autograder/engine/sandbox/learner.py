"""The learner's process: its start-up and environment, then the template that runs the setup and answer cells
once and forks a copy of itself per test.

    the starter (a fork of the judge)  ->  the sandbox, the judge's own child (`learner_main`: a session, the
        namespaces, a reaper as PID 1)  ->  the template (`template_main`: confined, then the cells, `ready`)
        ->  a copy per test, each time the judge asks (`fork_per_test`: the only fork its seccomp filter lets
            through, and only with the judge's leave), serving that test's requests (learner_requests.py)
"""

from __future__ import annotations

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

from autograder.engine.sandbox import cells, cgroup, codec, confine, integrity, protocol, seccomp, world
from autograder.engine.sandbox.channel import Channel, recv_fd, send_fd
from autograder.engine.sandbox.root import judge_only
from autograder.engine.sandbox.learner_requests import error_data, handle_of, serve


# ---------------------------------------------------------------------------------------- start-up

# Every fork below the starter's clone is taken without Python's at-fork callbacks: each of these processes has one
# thread (a clone of the starter, then its forks; the template's seccomp filter refuses threads). Bound before any
# answer runs: the template forks a test's copy after the answers ran.
_FORK = confine.fork_without_callbacks

_CLONE_PARENT = 0x00008000


def starter_main(requests: socket.socket, job: dict, workdir: str, read_roots: list) -> None:
    """The learner's starter: a fork of the judge taken before the judge read any test cell. For each request
    it starts a learner sandbox as the judge's own child (clone with CLONE_PARENT), hands the judge that
    sandbox's two channels and pid, and waits for the next request; it leaves when the judge does."""
    keep = requests.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, 4096)
    # Join the notebook's memory group now, while the judge reads the tests and runs the setup: moving a process
    # into a group costs 5-15 ms (the kernel waits for a grace period), and every sandbox started here is then
    # born in it, never moved.
    group = job.get("memory_group")
    in_group = bool(group) and cgroup.MemoryGroup("", group).join(os.getpid())
    while True:
        try:
            protocol.check_signal("start", requests.recv(16))
        except (OSError, protocol.ProtocolError):  # the judge left (end of stream), or asked nothing we know
            os._exit(0)
        pid, fds, control = spawn_sandbox(job, workdir, read_roots, sibling=True, close=(requests,), in_group=in_group)
        try:
            if pid > 0:
                socket.send_fds(requests, [json.dumps({"pid": pid}).encode()], [fds.fileno(), control.fileno()])
            else:
                requests.send(b'{"pid": -1}')
        except OSError:
            os._exit(0)
        fds.close()
        control.close()


def spawn_sandbox(job: dict, workdir: str, read_roots: list, sibling: bool, close=(), in_group: bool = False) -> tuple:
    """Start a learner sandbox: (pid, the judge's end of its descriptor channel, of its control channel).
    `sibling` (the starter's way): a clone with CLONE_PARENT, so the sandbox is the judge's own child, not the
    caller's; otherwise a plain fork of the caller (the judge itself, where clone is not available). `close`:
    the caller's sockets the sandbox must not inherit; `in_group`: the caller is in the notebook's memory group
    already (so is the sandbox, from birth)."""
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
            learner_main(fds_theirs, control_theirs, job, workdir, read_roots, in_group)
        finally:
            os._exit(70)
    fds_theirs.close()
    control_theirs.close()
    return pid, fds, control


def learner_main(fds: socket.socket, control: socket.socket, job: dict, workdir: str, read_roots: list,
                 in_group: bool = False) -> None:
    """The learner's outermost process (a fork of the judge; it runs no learner code): a session of its own,
    an identity that owns nothing (where the grader is root), the namespaces, a reaper as PID 1 of the new
    PID namespace, and the template as PID 2 (not 1: the namespace's init ignores the signals it sends
    itself, and `os.kill(os.getpid(), 9)` must end it). It waits for the template and ends as it ended, so
    the judge, whose own fork this is, reads the template's fate from its own child."""
    os.setsid()  # a process group the judge kills as one; seccomp keeps every descendant in it
    confine.die_with_parent()  # (the starter's path checked its parent already; a plain fork's is the judge)
    limits = job["limits"]
    group = job.get("memory_group")
    # all it forks is counted there (born in it when the starter joined it first)
    joined = in_group or bool(group) and cgroup.MemoryGroup("", group).join(os.getpid())
    facts: dict = {"namespaces": False, "why": "not asked for"}
    if limits["isolation"] == "full":
        facts = world.enter_namespaces()
    facts["memory_cgroup"] = joined
    supervisor = os.getpid()
    reaper = _FORK() if facts.get("namespaces") else None
    if reaper == 0:
        confine.die_with_parent()  # PID 1: when it goes, the kernel kills everything in the namespace
        _reap_forever()
    pid = _FORK()
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


# --------------------------------------------------------------------------------------- the template

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
    # Before seccomp (which refuses installing a handler): each answer cell's own time limit (run_cells).
    signal.signal(signal.SIGALRM, _cell_out_of_time)
    if limits["isolation"] != "none":
        # the package's own folder, split around its judge-only references: listed, so that a module beside them
        # still imports (the import system lists the folder), never read
        package = [os.path.dirname(p) for p in judge_only()]
        isolation["landlock"] = confine.install_landlock(roots, [folder], [os.devnull], package)
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
    names, failures = run_cells(job["cells"], limits["seconds_per_test"])
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


class CappedText(io.TextIOBase):
    """What the answer cells print, kept up to `limit` characters."""

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


class AnswerCellTimeLimit(BaseException):
    """Raised inside an answer cell that ran past its own time limit: that cell fails as if it had raised (the
    names it defined first are kept) and the next cells run. A BaseException, so `except Exception` in the answer
    does not swallow it; an answer that escapes it anyway meets the judge's own timer for all the answers."""


CELL_TIME_LIMIT = ("time limit exceeded in this cell ({seconds:g} s): is there an infinite loop, or work far larger "
                   "than the exercise needs? Its names defined before that still count; the next cells ran.")
_TIMING = [False]  # an answer cell runs under its own timer (a SIGALRM at any other time changes nothing)


def _cell_out_of_time(signum, frame):
    if _TIMING[0]:
        _TIMING[0] = False
        raise AnswerCellTimeLimit(CELL_TIME_LIMIT.format(seconds=_CELL_SECONDS[0]))


_CELL_SECONDS = [0.0]


def run_cells(job_cells: list, cell_seconds: float | None = None) -> tuple[dict, list]:
    """Run the setup and answer cells; the names the answers defined, and what each cell that raised raised
    (as data: the judge describes it). With `cell_seconds`, each answer cell has that long (the handler is
    installed before seccomp: `_cell_out_of_time`), and one that runs past it fails like a raise."""
    namespace = {"__name__": "__main__", "__builtins__": builtins.__dict__, "get_ipython": cells.NoIPython}
    # Compile every cell before any runs: answer code cannot change how later cells are read.
    compiled = [(label, cells.compile_cell(source, label)) for label, source in job_cells]
    answer_names, failures = {}, []
    timed = bool(cell_seconds) and signal.getsignal(signal.SIGALRM) is _cell_out_of_time
    for label, code in compiled:
        before = dict(namespace)
        error = None
        if not isinstance(code, cells.Outcome):  # a syntax error: the judge finds it itself
            on_timer = timed and label.startswith("answer")
            try:
                if on_timer:
                    _CELL_SECONDS[0], _TIMING[0] = cell_seconds, True
                    signal.setitimer(signal.ITIMER_REAL, cell_seconds)
                try:
                    exec(code, namespace)
                finally:
                    if on_timer:
                        _TIMING[0] = False
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except BaseException as raised:  # noqa: BLE001 - every failure is a fact for the judge
                error = raised
        if label.startswith("answer"):
            answer_names.update({k: v for k, v in namespace.items() if k not in before or before[k] is not v})
        if error is not None:
            failures.append({"cell": label[:200], "error": error_data(error)})
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
        if message != protocol.FORK or fd is None:  # the judge left, or asked nothing we know
            if fd is not None:
                os.close(fd)
            os._exit(0)
        try:
            pid = _FORK()  # the judge allows exactly this one through its seccomp listener
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
