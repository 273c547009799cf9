"""The seccomp filter in a bare fork (no judge, no namespaces): each call a hostile answer could make, what
the filter answers, that the same call on the process itself still works, and that a call through another
architecture's entry (i386's int 0x80, x32) ends the process instead of reaching the kernel."""

from __future__ import annotations

import ctypes
import errno
import json
import mmap
import os
import signal
import socket

import pytest

from autograder.engine.sandbox import confine, seccomp, world

pytestmark = pytest.mark.skipif(not seccomp.available(), reason="the seccomp filter is x86_64 Linux's, from libseccomp")

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
PARENT = "{parent}"  # replaced by the parent's pid in the child


def call(nr: int, *args) -> int:
    """The errno of syscall `nr` (0 when it succeeded)."""
    result = LIBC.syscall(nr, *args)
    return ctypes.get_errno() if result < 0 else 0


def prlimit_of(pid: int) -> int:
    old = ctypes.create_string_buffer(16)
    return call(302, pid, 7, None, old)  # prlimit64(pid, RLIMIT_NOFILE, NULL, &old): only reads


def connect_to(path: str) -> int:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        return 0
    except OSError as error:
        return error.errno


def errno_of(action) -> int:
    try:
        action()
        return 0
    except OSError as error:
        return error.errno


DATAGRAM = {}  # an unbound datagram socket made before the filter (as an inherited one would be)


# name, what the answer does (in the confined child), expected errno (0: allowed)
CALLS = [
    ("prlimit64 on its parent", lambda parent, path: prlimit_of(parent), errno.EPERM),
    ("prlimit64 on itself", lambda parent, path: prlimit_of(0), 0),
    ("setpriority on its parent", lambda parent, path: call(141, 0, parent, 5), errno.EPERM),
    ("setpriority on itself", lambda parent, path: call(141, 0, 0, 1), 0),
    ("sched_setaffinity on its parent", lambda parent, path: call(203, parent, 8, ctypes.byref(ctypes.c_ulong(1))),
     errno.EPERM),
    ("ioprio_set on its parent", lambda parent, path: call(251, 1, parent, 0), errno.EPERM),
    ("SysV shmget", lambda parent, path: call(29, 0x5EC0, 4096, 0o1666), errno.EPERM),
    ("SysV msgget", lambda parent, path: call(68, 0x5EC1, 0o1666), errno.EPERM),
    ("SysV semget", lambda parent, path: call(64, 0x5EC2, 1, 0o1666), errno.EPERM),
    ("POSIX mq_open", lambda parent, path: call(240, b"/q", 0o100 | 2, 0o600, None), errno.EPERM),
    ("connect to a pathname socket", lambda parent, path: connect_to(path), errno.EPERM),
    ("an internet socket", lambda parent, path: call(41, 2, 1, 0), errno.EPERM),
    ("a Unix datagram socket", lambda parent, path: call(41, 1, 2, 0), errno.EPERM),
    ("a socket pair", lambda parent, path: call(53, 1, 1, 0, ctypes.create_string_buffer(8)), errno.EPERM),
    ("sendto a pathname socket", lambda parent, path: errno_of(lambda: DATAGRAM["s"].sendto(b"x", path)),
     errno.EPERM),
    ("memfd_create", lambda parent, path: call(319, b"held", 0), errno.EPERM),
    ("memfd_secret", lambda parent, path: call(447, 0), errno.EPERM),
    ("chmod", lambda parent, path: errno_of(lambda: os.chmod(os.devnull, 0o666)), errno.EPERM),
    ("fchmodat2", lambda parent, path: call(452, -100, os.devnull.encode(), 0o666, 0), errno.EPERM),
    ("chown", lambda parent, path: errno_of(lambda: os.chown(os.devnull, 0, 0)), errno.EPERM),
    ("utime", lambda parent, path: errno_of(lambda: os.utime(os.devnull)), errno.EPERM),
    ("setxattr", lambda parent, path: errno_of(lambda: os.setxattr(os.devnull, "user.a", b"1")), errno.EPERM),
    ("removexattr", lambda parent, path: errno_of(lambda: os.removexattr(os.devnull, "user.a")), errno.EPERM),
    ("sethostname", lambda parent, path: call(170, b"x", 1), errno.EPERM),
    ("clock_settime", lambda parent, path: call(227, 0, ctypes.create_string_buffer(16)), errno.EPERM),
    ("unshare a user namespace", lambda parent, path: call(272, world.CLONE_NEWUSER), errno.EPERM),
    ("clone into a new PID namespace", lambda parent, path: call(56, world.CLONE_NEWPID | 17, 0, 0, 0, 0),
     errno.EPERM),
    ("a thread", lambda parent, path: call(56, 0x00010000 | 0x00000100 | 0x00000800, 0, 0, 0, 0), errno.EPERM),
    ("kill its parent", lambda parent, path: call(62, parent, 0), errno.EPERM),
    ("kill its own process group (itself)", lambda parent, path: call(62, 0, 0), 0),
    ("kill itself by pid", lambda parent, path: call(62, os.getpid(), 0), 0),
    ("kill every process it may (-1)", lambda parent, path: call(62, -1, 0), errno.EPERM),
    ("kill a process group by number", lambda parent, path: call(62, -parent, 0), errno.EPERM),
    ("kill pid 1", lambda parent, path: call(62, 1, 0), errno.EPERM),
    ("pidfd_open on its parent", lambda parent, path: call(434, parent, 0), errno.EPERM),
    ("execve", lambda parent, path: call(59, b"/bin/true", None, None), errno.EPERM),
]


@pytest.fixture(scope="module")
def listening_socket(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("sock") / "s")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)
    yield path
    server.close()


def test_what_seccomp_answers(listening_socket):
    """All calls in one confined child (a fork each would cost more than the calls)."""
    parent = os.getpid()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        results = {}
        try:
            os.setsid()  # as the learner's sandbox: its own process group, which kill(0) stays inside
            DATAGRAM["s"] = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            assert seccomp.install("deny") == 0
            for name, action, _ in CALLS:
                results[name] = action(parent, listening_socket)
        finally:
            os.write(write, json.dumps(results).encode())
            os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.waitpid(pid, 0)
    got = json.loads(data)
    wrong = {name: (errno.errorcode.get(got.get(name), got.get(name)), errno.errorcode.get(want, want))
             for name, _, want in CALLS if got.get(name) != want}
    assert not wrong, f"(got, wanted) per call: {wrong}"


def _i386_socket() -> int:
    """socket(AF_INET, SOCK_STREAM, 0) through the i386 entry, from an executable mapping: mov eax, 359;
    mov ebx, 2; mov ecx, 1; xor edx, edx; int 0x80; ret."""
    code = bytes([0xB8, 0x67, 0x01, 0, 0, 0xBB, 2, 0, 0, 0, 0xB9, 1, 0, 0, 0, 0x31, 0xD2, 0xCD, 0x80, 0xC3])
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    return ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()


FOREIGN_ENTRIES = {"i386 int 0x80": _i386_socket, "x32": lambda: LIBC.syscall(0x40000000 | 41, 2, 1, 0)}


@pytest.mark.parametrize("entry", sorted(FOREIGN_ENTRIES))
@pytest.mark.parametrize("filtered", [False, True])
def test_another_architectures_entry_ends_the_process(entry, filtered):
    """Unfiltered, the i386 entry opens an internet socket (the call is real, so the test can fail); under
    the filter the process is killed by SIGSYS before the kernel runs the call."""
    pid = os.fork()
    if pid == 0:
        try:
            if filtered:
                seccomp.install("deny")
            os._exit(0 if FOREIGN_ENTRIES[entry]() >= 0 else 3)
        finally:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    if filtered:
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS, status
    elif entry == "i386 int 0x80":
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def test_the_allow_list_splits_a_root_around_a_protected_tree(tmp_path):
    (tmp_path / "lib" / "pkg").mkdir(parents=True)
    (tmp_path / "lib" / "keys").mkdir()
    (tmp_path / "lib" / "other.py").write_text("")
    (tmp_path / "elsewhere").mkdir()
    roots = confine.allowed_roots([str(tmp_path / "lib"), str(tmp_path / "missing")], [str(tmp_path / "lib" / "keys")])
    assert roots == sorted([str(tmp_path / "lib" / "other.py"), str(tmp_path / "lib" / "pkg")])


def test_the_learners_allow_list_holds_no_checkout_home_or_temporary_folder():
    import tempfile

    from autograder.engine import grading
    from autograder import paths
    from autograder.engine.sandbox.root import learner_read_roots

    roots = learner_read_roots([str(p) for p in grading.protected_paths()])
    forbidden = [str(paths.ROOT), str(paths.SOLUTIONS), str(paths.ZOO), os.path.realpath(tempfile.gettempdir()),
                 os.path.expanduser("~"), "/", "/etc", "/home", "/var"]
    assert not set(roots) & set(forbidden), set(roots) & set(forbidden)
    assert not [r for r in roots if r.startswith(str(paths.SOLUTIONS))]
    # the package, but for its judge-only references (tests/core/test_no_reference_answers.py): its other parts
    assert {str(paths.ROOT / "autograder" / part) for part in ("checks", "engine", "lab.py")} <= set(roots)
    assert not [r for r in roots if (paths.ROOT / "autograder" / "references").as_posix().startswith(r)]
