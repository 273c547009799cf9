"""What holds the learner's process in, enforced by the kernel: namespaces, rlimits, Landlock, seccomp.

- namespaces (where unprivileged user namespaces exist): its own user (no capabilities left once set up),
  PID, IPC, mount, network and UTS namespaces, so no process, IPC object or socket outside its sandbox can
  be named, and its folder is a tmpfs of a fixed size.
- rlimits: address space, file size, no core dumps.
- Landlock (Linux >= 5.13): read only an allow-list (the Python installation and its packages, the grading
  package, system libraries, its own /proc), write only in its own folder, no TCP, no signals or abstract
  sockets out of the sandbox.
- seccomp: no exec, no ptrace, no mounts or namespaces, no sockets but Unix ones and no connect(), no
  threads, no leaving the process group, no SysV or POSIX IPC, no touching other processes' limits,
  priorities or scheduling, no clock or host name changes. New processes: the template process (which ran
  the answers) may fork only when the judge, listening on a seccomp user-notification descriptor, allows
  that one fork, and never with namespace flags; a test's process may not fork.
"""

from __future__ import annotations

import ctypes
import fcntl
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


# ---------------------------------------------------------------------------------------- namespaces

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
_NAMESPACES = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 1 << 18


def enter_namespaces(folder: str, folder_bytes: int) -> dict:
    """Unshare user, PID, IPC, mount, network and UTS namespaces (the caller's next fork is PID 1 of the new
    PID namespace) and mount a tmpfs of `folder_bytes` on `folder`. {"namespaces": False} where the kernel
    or the container refuses (the caller then runs with the other layers only)."""
    if not linux():
        return {"namespaces": False, "why": f"not Linux ({sys.platform})"}
    uid, gid = os.getuid(), os.getgid()
    if _LIBC.unshare(_NAMESPACES) != 0:
        return {"namespaces": False, "why": os.strerror(ctypes.get_errno())}
    try:
        # The same ids inside as outside: files and getpass look as they did; capabilities go in drop_all.
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError as error:
        return {"namespaces": False, "why": f"id maps: {error.strerror}"}
    facts = {"namespaces": True}
    if _LIBC.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0:
        options = f"size={int(folder_bytes)},mode=0700".encode()
        facts["quota"] = _LIBC.mount(b"tmpfs", folder.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) == 0
    else:
        facts["quota"] = False
    return facts


def die_with_parent(parent: int | None = None) -> None:
    """SIGKILL this process when its parent ends (PR_SET_PDEATHSIG): a sandbox whose judge was killed does not
    run on. With `parent`, a parent that already ended before the call is caught too."""
    if linux():
        _LIBC.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if parent is not None and os.getppid() != parent:
            os._exit(70)


def mount_own_proc() -> bool:
    """In the new PID namespace: a /proc that shows only its processes (False where a container forbids it,
    and the allow-list then leaves /proc out)."""
    return _LIBC.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) == 0


def drop_capabilities() -> bool:
    """Give up every capability (those the new user namespace granted): capset with empty sets."""
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(bytes(24), 24)
    return _LIBC.syscall(126, header, data) == 0


# ------------------------------------------------------------------------------------------- rlimits

def limit_resources(memory_mb: int, file_bytes: int) -> None:
    limit_address_space(memory_mb)
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
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


def install_landlock(read_roots: list, rw_dirs: list, rw_files: list) -> int:
    """Returns the ABI version enforced, 0 if Landlock is unavailable."""
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
        for path in rw_dirs:
            allow(path, handled)
        for path in rw_files:
            allow(path, read_file | write_file | (1 << 14 if abi >= 3 else 0))
        if _LIBC.prctl(38, 1, 0, 0, 0) != 0 or _LIBC.syscall(446, ruleset, 0) != 0:  # NO_NEW_PRIVS; restrict
            return 0
    finally:
        os.close(ruleset)
    return abi


# ------------------------------------------------------------------------------------------- seccomp

_ARCH_X86_64 = 0xC000003E
_DENIED = [57, 58, 59, 322,                     # fork vfork execve execveat (libc forks with clone)
           101, 310, 311, 312, 440,             # ptrace process_vm_readv/writev kcmp process_madvise
           165, 166, 155, 161, 272, 308, 428, 429, 430, 431, 432, 433, 442,  # mounts, namespaces
           246, 320, 175, 313, 176, 169, 167, 168, 163, 103, 172, 173,     # kernel, reboot, io ports
           321, 298, 323, 250, 248, 249,        # bpf perf_event_open userfaultfd keyrings
           303, 304, 133, 259,                  # open_by_handle_at and friends, mknod
           424, 434, 438, 425, 426, 427, 300,   # pidfd_*, io_uring_*, fanotify_init
           109, 112,                            # setpgid setsid: nothing leaves the process group
           29, 30, 31, 67, 64, 65, 66, 220,     # SysV shared memory and semaphores
           68, 69, 70, 71,                      # SysV message queues
           240, 241, 242, 243, 244, 245,        # POSIX message queues
           42,                                  # connect: only the sockets it was given
           170, 171,                            # sethostname setdomainname
           164, 227, 159, 305]                  # settimeofday clock_settime adjtimex clock_adjtime
# Calls that name a process in their first argument: allowed on itself only (0, or its own pid).
_OWN_PROCESS_FIRST = [302,                      # prlimit64
                      142, 144, 203, 314,       # sched_setparam sched_setscheduler sched_setaffinity sched_setattr
                      256, 279, 274]            # migrate_pages move_pages get_robust_list
# ... and in their second argument (which, who): setpriority, ioprio_set.
_OWN_PROCESS_SECOND = [141, 251]
_CLONE_THREAD = 0x00010000
_CLONE_REFUSED = (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID
                  | CLONE_NEWNET | 0x00008000 | 0x00002000)  # namespaces, CLONE_PARENT, CLONE_PTRACE
RET_ALLOW, RET_EPERM, RET_ENOSYS, RET_NOTIFY = 0x7FFF0000, 0x00050001, 0x00050026, 0x7FC00000
LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06


def _assemble(program: list) -> list:
    """Resolve string labels in (code, k, jt, jf) entries into relative jumps."""
    positions, index = {}, 0
    for item in program:
        if isinstance(item, str):
            positions[item] = index
        else:
            index += 1
    out, index = [], 0
    for item in program:
        if isinstance(item, str):
            continue
        code, k, jt, jf = item
        jt = positions[jt] - index - 1 if isinstance(jt, str) else jt
        jf = positions[jf] - index - 1 if isinstance(jf, str) else jf
        out.append((code, jt, jf, k))
        index += 1
    return out


def seccomp_program(pid: int, forks: str) -> list:
    """forks: "notify" (a process may be created when the judge allows it) or "deny"."""
    p = [(LD, 4, 0, 0), (JEQ, _ARCH_X86_64, 0, "allow"), (LD, 0, 0, 0), (JGE, 0x40000000, "deny", 0)]
    p += [(JEQ, n, "deny", 0) for n in _DENIED]
    p += [(JEQ, n, "own_first", 0) for n in _OWN_PROCESS_FIRST]
    p += [(JEQ, n, "own_second", 0) for n in _OWN_PROCESS_SECOND]
    p += [(JEQ, 56, "clone", 0), (JEQ, 435, "enosys", 0),  # clone3: libc falls back to clone
          (JEQ, 62, "kill", 0), (JEQ, 200, "own_pid", 0), (JEQ, 234, "own_pid", 0), (JEQ, 129, "own_pid", 0),
          (JEQ, 297, "own_pid", 0), (JEQ, 13, "sigaction", 0), (JEQ, 41, "socket", 0), (RET, RET_ALLOW, 0, 0)]
    p += ["clone", (LD, 16, 0, 0), (JSET, _CLONE_THREAD | _CLONE_REFUSED, "deny", 0)]  # threads: never
    p += [(RET, RET_NOTIFY if forks == "notify" else RET_EPERM, 0, 0)]
    p += ["kill", (LD, 16, 0, 0), (JEQ, 0, "allow", 0)]                # own process group
    p += ["own_pid", (LD, 16, 0, 0), (JEQ, pid, "allow", "deny")]
    p += ["own_first", (LD, 16, 0, 0), (JEQ, 0, "allow", 0), (JEQ, pid, "allow", "deny")]
    p += ["own_second", (LD, 24, 0, 0), (JEQ, 0, "allow", 0), (JEQ, pid, "allow", "deny")]
    p += ["sigaction", (LD, 24, 0, 0), (JEQ, 0, 0, "deny"), (LD, 28, 0, 0), (JEQ, 0, "allow", "deny")]
    p += ["socket", (LD, 16, 0, 0), (JEQ, 1, "allow", "deny")]         # AF_UNIX only
    p += ["allow", (RET, RET_ALLOW, 0, 0), "deny", (RET, RET_EPERM, 0, 0), "enosys", (RET, RET_ENOSYS, 0, 0)]
    return _assemble(p)


def install_seccomp(forks: str) -> int | None:
    """Install the filter. With forks="notify", returns the listener descriptor the judge must answer on
    (None if seccomp is unavailable); with "deny", returns 0 on success."""
    if not linux() or os.uname().machine != "x86_64":
        return None
    program = seccomp_program(os.getpid(), forks)
    raw = b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in program)
    filters = ctypes.create_string_buffer(raw, len(raw))
    fprog = ctypes.create_string_buffer(struct.pack("=HxxxxxxQ", len(program), ctypes.addressof(filters)), 16)
    if _LIBC.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return None
    flags = 1 << 3 if forks == "notify" else 0  # SECCOMP_FILTER_FLAG_NEW_LISTENER
    result = _LIBC.syscall(317, 1, flags, fprog)  # seccomp(SECCOMP_SET_MODE_FILTER, flags, prog)
    return None if result < 0 else int(result)


# The judge's side of the user notifications: struct seccomp_notif (80 bytes), seccomp_notif_resp (24).
_NOTIF_RECV, _NOTIF_SEND = 0xC0502100, 0xC0182101


def next_notification(listener: int) -> tuple[int, int, int] | None:
    """(id, pid, syscall number) of a pending request, or None if the requester is gone."""
    buffer = bytearray(80)
    try:
        fcntl.ioctl(listener, _NOTIF_RECV, buffer, True)
    except OSError:
        return None
    request_id, pid, _flags, nr = struct.unpack_from("=QIIi", buffer)
    return request_id, pid, nr


def answer_notification(listener: int, request_id: int, allow: bool) -> None:
    flags, error = (1, 0) if allow else (0, -1)  # SECCOMP_USER_NOTIF_FLAG_CONTINUE, or EPERM
    try:
        fcntl.ioctl(listener, _NOTIF_SEND, bytearray(struct.pack("=QqiI", request_id, 0, error, flags)), True)
    except OSError:
        pass  # the requester died meanwhile
