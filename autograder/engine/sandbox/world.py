"""What the learner's process is and sees: an identity that owns nothing, namespaces of its own, and a fresh
root that holds only the allow-list, read-only.

- identity: a grader running as root (CI, Gradescope, a hub's grading service) hands the learner an
  unallocated uid and gid (`learner_ids`), no supplementary groups: it owns no file on the host, so
  chmod, chown, utime and xattr calls on the host's files fail by permission even where no namespace or
  seccomp layer exists. An unprivileged grader cannot change uid: the read-only root is its answer.
- namespaces (where user namespaces exist): user, PID, IPC, mount, network, UTS.
- the root (`enter_fresh_root`, in the mount namespace): a small tmpfs holding the allow-list as read-only
  bind mounts (every submount read-only too), the few device files C libraries open, its own /proc, and
  one writable folder, /tmp, a tmpfs of a fixed size; pivot_root into it and the host's tree is detached.
  Metadata calls fail everywhere (EROFS), no host socket path or PYTHONPATH folder is there, nothing
  written outlives the sandbox.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import signal
import struct
import sys
import sysconfig

from autograder.engine.sandbox.confine import LIBC, linux

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
NAMESPACES = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x20, 0x1000, 0x4000, 1 << 18
_MNT_DETACH, _AT_FDCWD, _AT_RECURSIVE = 2, -100, 0x8000
_ATTR_RDONLY, _ATTR_NOSUID, _ATTR_NODEV = 0x1, 0x2, 0x4
_SYS_PIVOT_ROOT, _SYS_MOUNT_SETATTR = 155, 442
FOLDER = "/tmp"                     # the learner's one writable folder, inside its root
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
_LEARNER_IDS = range(0x6F000000, 0x6F00FFFF)  # far above any account a system allocates


def _errno() -> str:
    return os.strerror(ctypes.get_errno())


# ------------------------------------------------------------------------------------------ identity

def learner_ids(seed: int) -> int | None:
    """An unallocated id for one sandbox (the same for its uid and gid), or None where this process cannot
    change identity (it is not root)."""
    if not linux() or os.geteuid() != 0:
        return None
    for offset in range(len(_LEARNER_IDS)):
        uid = _LEARNER_IDS[(seed + offset) % len(_LEARNER_IDS)]
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    return None


def become(uid: int) -> None:
    """Drop root for `uid` (and gid `uid`), no groups, every capability gone, for good; re-arm the
    parent-death signal the change of identity clears."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    LIBC.prctl(1, signal.SIGKILL, 0, 0, 0)    # PR_SET_PDEATHSIG
    LIBC.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: its own /proc/self (fd, maps) stays its own, as libraries expect


# ---------------------------------------------------------------------------------------- namespaces

def enter_namespaces() -> dict:
    """Unshare PID, IPC, mount, network and UTS namespaces (the caller's next fork is PID 1 of the new PID
    namespace). A root grader needs no user namespace (its learner drops to an unallocated uid once its root
    is built, and owns no namespace it could mount in); any other makes one and keeps its own ids in it.
    {"namespaces": False, "why": ...} where the kernel or the container refuses (the caller then runs with
    the other layers only)."""
    if not linux():
        return {"namespaces": False, "why": f"not Linux ({sys.platform})"}
    privileged = os.geteuid() == 0
    uid, gid = os.getuid(), os.getgid()
    if LIBC.unshare(NAMESPACES & ~CLONE_NEWUSER if privileged else NAMESPACES) != 0:
        return {"namespaces": False, "why": _errno()}
    if not privileged:
        try:
            with open("/proc/self/setgroups", "w") as f:
                f.write("deny")
            with open("/proc/self/uid_map", "w") as f:
                f.write(f"{uid} {uid} 1")
            with open("/proc/self/gid_map", "w") as f:
                f.write(f"{gid} {gid} 1")
        except OSError as error:
            return {"namespaces": False, "why": f"id maps: {error.strerror}"}
    if LIBC.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return {"namespaces": True, "private_mounts": False, "why": f"private mounts: {_errno()}"}
    return {"namespaces": True, "private_mounts": True}


def drop_capabilities() -> bool:
    """Give up every capability (those the new user namespace granted): capset with empty sets."""
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(bytes(24), 24)
    return LIBC.syscall(126, header, data) == 0


# ------------------------------------------------------------------------------------------ the root

def symlinks_on_the_way(paths: list) -> dict:
    """Every symbolic link met on the way to `paths` (a merged /usr's /lib, a venv's python): path -> target."""
    links = {}
    for path in paths:
        parts = os.path.abspath(path).split(os.sep)[1:]
        for i in range(1, len(parts) + 1):
            prefix = os.sep + os.path.join(*parts[:i])
            if os.path.islink(prefix) and prefix not in links:
                try:
                    links[prefix] = os.readlink(prefix)
                except OSError:
                    pass
    return links


def unresolved_paths() -> list:
    """Paths the learner's libraries name as they are, not resolved (the allow-list holds real paths): the
    loader's /lib, the interpreter's prefixes and search path, /etc/localtime."""
    return ["/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc/localtime", sys.prefix,
            sys.exec_prefix, sys.base_prefix, *sysconfig.get_paths().values(), *[p for p in sys.path if p]]


def _mount(source, target: str, fstype, flags: int, data=None) -> bool:
    enc = (lambda s: s.encode() if isinstance(s, str) else s)
    return LIBC.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) == 0


def _read_only(target: str, devices: bool = False) -> bool:
    """Make the mount at `target` and every mount below it read-only, setuid-free (and device-free unless
    `devices`): mount_setattr(AT_RECURSIVE) where the kernel has it (5.12), else a remount of the top."""
    attrs = _ATTR_RDONLY | _ATTR_NOSUID | (0 if devices else _ATTR_NODEV)
    attr = ctypes.create_string_buffer(struct.pack("=QQQQ", attrs, 0, 0, 0), 32)
    if LIBC.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, target.encode(), _AT_RECURSIVE, attr, 32) == 0:
        return True
    kept = os.statvfs(target).f_flag & (_MS_NOSUID | _MS_NODEV | _MS_NOEXEC | 0x400 | 0x800 | 0x1000)
    flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | kept | (0 if devices else _MS_NODEV)
    return _mount(None, target, None, flags)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def enter_fresh_root(mountpoint: str, sources: list, links: dict, folder_bytes: int, owner: int | None) -> dict:
    """In a mount namespace of our own, with its capabilities: build the learner's root on `mountpoint` and
    pivot into it; `sources` are the allow-listed paths, `owner` the uid (and gid) its folder belongs to
    (None: this process's). Call it in the PID namespace's process that will run the learner's code: its
    /proc shows only that namespace. Facts for the isolation report; {"read_only_root": False, "why": ...}
    if a step fails."""
    facts = {"read_only_root": False}
    try:
        if not _mount("tmpfs", mountpoint, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=4m,nr_inodes=20000,mode=0755"):
            raise OSError(f"tmpfs root: {_errno()}")
        root = mountpoint.rstrip("/")
        # The folder first: an allow-listed path inside /tmp (a checkout or a venv there) is bound on top of it,
        # not hidden under it.
        os.makedirs(root + FOLDER, exist_ok=True)
        options = f"size={int(folder_bytes)},mode=0700" + (f",uid={owner},gid={owner}" if owner is not None else "")
        facts["folder_quota"] = _mount("tmpfs", root + FOLDER, "tmpfs", _MS_NOSUID | _MS_NODEV, options)
        if not facts["folder_quota"]:
            raise OSError(f"tmpfs folder: {_errno()}")
        for link, target in sorted(links.items()):
            if not any(_inside(link, p) for p in sources):
                os.makedirs(os.path.dirname(root + link), exist_ok=True)
                if not os.path.lexists(root + link):
                    os.symlink(target, root + link)
        bound: list = []
        for path in sorted(set(sources)):
            if any(_inside(path, b) for b in bound) or not os.path.exists(path):  # inside a bound tree already
                continue
            target = root + path
            if os.path.isdir(path):
                os.makedirs(target, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                open(target, "a").close()
            if not _mount(path, target, None, _MS_BIND | _MS_REC):
                raise OSError(f"bind {path}: {_errno()}")
            if not _read_only(target, devices=path in DEVICES):
                raise OSError(f"read-only {path}: {_errno()}")
            bound.append(path)
        os.makedirs(root + "/proc", exist_ok=True)
        # Before the pivot: a new proc may be mounted only while a full /proc is visible in the namespace.
        facts["own_proc"] = _mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        os.chdir(root)
        if LIBC.syscall(_SYS_PIVOT_ROOT, b".", b".") != 0:
            raise OSError(f"pivot_root: {_errno()}")
        if LIBC.umount2(b".", _MNT_DETACH) != 0:  # the host's tree, stacked on ours by the pivot
            raise OSError(f"detaching the host's root: {_errno()}")
        os.chdir("/")
        if not _mount(None, "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV):
            raise OSError(f"read-only root: {_errno()}")
        os.chdir(FOLDER)
        facts["read_only_root"] = True
    except OSError as error:
        facts["why"] = str(error)[:200]
    return facts
