"""A memory cgroup around each notebook's learner sandboxes, where the grader may make one (cgroup v2 with the
memory controller delegated, or a writable v1 memory hierarchy: CI, Gradescope's root, a hub's service).

The address-space limit counts what one process maps; the cgroup counts what the kernel charges to the whole
sandbox: its processes' pages, its tmpfs files, pipe buffers and socket buffers (v1: kernel memory where the
hierarchy accounts it). The judge makes the group before the learner's starter is forked and removes it, with
anything still in it, when the notebook is done. Where no group can be made, the isolation report says so.
"""

from __future__ import annotations

import os
import signal
import time

_MOUNTS = "/proc/self/mountinfo"


def _own_group() -> tuple[str, str] | None:
    """(version, folder) of this process's memory cgroup, where its file system is mounted and writable."""
    try:
        lines = open("/proc/self/cgroup").read().splitlines()
        mounts = [line.split(" - ") for line in open(_MOUNTS).read().splitlines()]
    except OSError:
        return None
    v1 = {parts[1]: parts[2] for parts in (line.split(":", 2) for line in lines) if len(parts) == 3}
    for before, after in mounts:
        fields, kind = before.split(), after.split()
        mountpoint, fstype, options = fields[4], kind[0], kind[-1].split(",")
        if fstype == "cgroup2" and "" in v1 and os.path.exists(os.path.join(mountpoint, "cgroup.controllers")):
            folder = mountpoint + v1[""]
            try:
                if "memory" in open(os.path.join(folder, "cgroup.subtree_control")).read().split():
                    return "v2", folder
            except OSError:
                pass
        if fstype == "cgroup" and "memory" in options:
            key = next((k for k in v1 if "memory" in k.split(",")), None)
            if key is not None:
                return "v1", mountpoint + v1[key]
    return None


class MemoryGroup:
    """One notebook's group: `join(pid)` puts a process (and so all it forks) in it; `remove()` ends it."""

    def __init__(self, version: str, folder: str):
        self.version, self.folder = version, folder

    def join(self, pid: int) -> bool:
        try:
            with open(os.path.join(self.folder, "cgroup.procs"), "w") as f:
                f.write(str(pid))
            return True
        except OSError:
            return False

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in open(os.path.join(self.folder, "cgroup.procs")).read().split()]
        except (OSError, ValueError):
            return []

    def remove(self) -> None:
        """Kill whatever is still in the group (nothing of a sandbox survives its notebook), then remove it."""
        pause = 0.0005
        for _ in range(60):  # about a second in all: a killed process leaves the group as its exit ends
            pids = self.pids()
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                os.rmdir(self.folder)
                return
            except OSError:
                time.sleep(pause)
                pause = min(pause * 2, 0.02)


def memory_group(limit_bytes: int) -> MemoryGroup | None:
    """A new group capped at `limit_bytes`, below this process's own; None where none can be made."""
    found = _own_group()
    if found is None:
        return None
    version, parent = found
    folder = os.path.join(parent, f"grading-{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.mkdir(folder)
    except OSError:
        return None
    group = MemoryGroup(version, folder)
    limits = ["memory.max", "memory.swap.max"] if version == "v2" else \
        ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
    try:
        with open(os.path.join(folder, limits[0]), "w") as f:
            f.write(str(int(limit_bytes)))
    except OSError:
        group.remove()
        return None
    try:  # swap too, where it is accounted (v1 needs the memory limit set first)
        with open(os.path.join(folder, limits[1]), "w") as f:
            f.write("0" if version == "v2" else str(int(limit_bytes)))
    except OSError:
        pass
    return group


def available() -> bool:
    """Whether a memory group can be made here (one is made and removed)."""
    group = memory_group(1 << 30)
    if group is None:
        return False
    group.remove()
    return True
