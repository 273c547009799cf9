"""What holds the learner's process in, enforced by the kernel, besides its identity, namespaces and root
(world.py) and its seccomp filter (seccomp.py): rlimits and Landlock.

- rlimits: address space, file size, open files, no core dumps.
- Landlock (Linux >= 5.13): read only an allow-list (the Python installation and its packages, the grading
  package, system libraries, its own /proc), write only in its own folder, no TCP, no signals or abstract
  sockets out of the sandbox.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import struct
import sys

_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.syscall.restype = ctypes.c_long
LIBC = _LIBC


def linux() -> bool:
    """Every kernel call below is Linux's (syscall numbers included): elsewhere none is made."""
    return sys.platform.startswith("linux")


# ------------------------------------------------------------------------------------------ the parent

def die_with_parent(parent: int | None = None) -> None:
    """SIGKILL this process when its parent ends (PR_SET_PDEATHSIG): a sandbox whose judge was killed does not
    run on. With `parent`, a parent that already ended before the call is caught too."""
    if linux():
        _LIBC.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if parent is not None and os.getppid() != parent:
            os._exit(70)


def fork_without_callbacks() -> int:
    """fork(2) through the C library, without Python's at-fork callbacks (os.register_at_fork: threading's,
    logging's, random's, filelock's...): the child's pid, 0 in the child, OSError as os.fork. The C library's own
    handlers (pthread_atfork: malloc's, OpenMP's, PyTorch's) still run. Only for a process with one thread that
    holds no lock when it calls this, which is what those callbacks repair: the learner's sandbox below the
    starter's clone (learner.py), whose template's seccomp filter keeps it to one thread and forks from a
    blocking read. They cost a test's copy 1.8 ms, their own run and the template's pages they write (each one
    the copy then copies); and in one process, where the checks' verdicts are defined, no fork runs them."""
    pid = _LIBC.fork()
    if pid < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return pid


# ------------------------------------------------------------------------------------------- rlimits

# Open files at once: a few for the channels and lazy imports; each pipe holds at most 1 MB of kernel memory
# outside the address-space limit, so this bounds that too.
LEARNER_FILES = 64


def limit_resources(memory_mb: int, file_bytes: int, files: int | None = None) -> None:
    limit_address_space(memory_mb)
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    if files is not None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails instead of killing us


def limit_address_space(memory_mb: int) -> None:
    """This process may map `memory_mb` more than it has mapped now (never above a limit it inherited)."""
    memory = _vm_size() + memory_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        memory = min(memory, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ValueError, OSError):  # macOS refuses address-space limits
        if linux():
            raise


def _vm_size() -> int:
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


# ------------------------------------------------------------------------------------------ Landlock

def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def allowed_roots(allowed: list, denied: list) -> list[str]:
    """The allow-list, minus the denied trees inside it (an allowed folder that holds a denied one is split
    into its other children)."""
    denied = [os.path.realpath(p) for p in denied]
    roots: list[str] = []
    for path in sorted({os.path.realpath(p) for p in allowed if os.path.exists(p)}):
        if any(_inside(path, d) for d in denied):
            continue
        if any(_inside(d, path) for d in denied) and os.path.isdir(path):
            roots += [r for r in readable_roots(denied, path)]
        else:
            roots.append(path)
    return sorted(set(roots))


def readable_roots(denied: list, top: str = "/") -> list[str]:
    """Everything under `top` except the denied trees: the children of their ancestors, split as deep as
    needed."""
    denied = [os.path.realpath(p) for p in denied]
    inside = _inside
    roots: list[str] = []

    def visit(directory: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            real = os.path.realpath(os.path.join(directory, entry.name))
            if any(inside(real, d) for d in denied):
                continue
            if any(inside(d, real) for d in denied):
                if depth < 12 and os.path.isdir(real):
                    visit(real, depth + 1)
                continue
            roots.append(real)

    visit(top, 0)
    return sorted(set(roots))


def landlock_abi() -> int:
    if not linux():
        return 0
    try:
        return max(int(_LIBC.syscall(444, None, 0, 1)), 0)  # landlock_create_ruleset(NULL, 0, VERSION)
    except Exception:  # noqa: BLE001
        return 0


def install_landlock(read_roots: list, rw_dirs: list, rw_files: list, list_dirs: list = ()) -> int:
    """Returns the ABI version enforced, 0 if Landlock is unavailable. `list_dirs`: folders whose entries may be
    listed (names only, beneath too) but whose files are not read: a folder split around a denied tree, whose
    listing Python's import system needs to find the modules beside it."""
    abi = landlock_abi()
    if abi < 1:
        return 0
    execute, write_file, read_file, read_dir = 1 << 0, 1 << 1, 1 << 2, 1 << 3
    handled = (1 << 13) - 1 | (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0)
    file_rights = execute | write_file | read_file | (1 << 14 if abi >= 3 else 0)
    net = 0b11 if abi >= 4 else 0     # BIND_TCP | CONNECT_TCP with no rule: none allowed
    scoped = 0b11 if abi >= 6 else 0  # abstract unix sockets and signals stay inside
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    attr = ctypes.create_string_buffer(struct.pack("=QQQ", handled, net, scoped)[:size], size)
    ruleset = _LIBC.syscall(444, attr, ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return 0
    try:
        def allow(path: str, access: int) -> None:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                return
            try:
                access = access if os.path.isdir(path) else access & file_rights
                rule = ctypes.create_string_buffer(struct.pack("=Qi", access & handled, fd), 12)
                _LIBC.syscall(445, ruleset, 1, rule, 0)  # LANDLOCK_RULE_PATH_BENEATH
            finally:
                os.close(fd)

        for path in read_roots:
            allow(path, execute | read_file | read_dir)
        for path in list_dirs:
            allow(path, read_dir)
        for path in rw_dirs:
            allow(path, handled)
        for path in rw_files:
            allow(path, read_file | write_file | (1 << 14 if abi >= 3 else 0))
        if _LIBC.prctl(38, 1, 0, 0, 0) != 0 or _LIBC.syscall(446, ruleset, 0) != 0:  # NO_NEW_PRIVS; restrict
            return 0
    finally:
        os.close(ruleset)
    return abi
