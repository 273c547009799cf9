"""Cheaper forks: the root's anonymous memory (the heap and the mappings PyTorch and the checks allocated while
importing, about 220 MB) collapsed into 2 MiB transparent huge pages once, before any judge is forked.

Every test forks a copy of the learner's state from a process that inherits this memory,
and a fork copies, and an exit releases, one page-table entry per 4 KiB page: about 60,000 of them, 20-25 ms a
fork and exit on a 2-core VM. Mapped as huge pages they are about 120 entries (4 ms). A child that writes to a
huge page splits only that one and copies the 4 KiB it wrote, so nothing a child does reaches its parent.

`MADV_COLLAPSE` (Linux 6.1) works whatever the system's THP setting, except "never"; where it is missing or
refused every region stays as it was and forks cost what they did. Only a class's root (root.prepare), which
never runs the learner's code, calls it: collapsing takes 0.8-1 s, which one notebook's ten tests do not win back."""

from __future__ import annotations

import ctypes
import ctypes.util

MADV_COLLAPSE = 25
HUGE = 1 << 21


def anonymous_regions(maps_text: str) -> list[tuple[int, int]]:
    """The private writable anonymous regions of a /proc/<pid>/maps text (the heap and unnamed mappings), each
    trimmed to whole 2 MiB pages; those too small to hold one are left out."""
    regions = []
    for line in maps_text.splitlines():
        fields = line.split()
        if len(fields) < 5 or not fields[1].startswith("rw") or fields[1][3] != "p":
            continue
        if len(fields) > 5 and fields[5] != "[heap]":
            continue  # files, the stack, vdso: not ours to change
        start, end = (int(x, 16) for x in fields[0].split("-"))
        start, end = (start + HUGE - 1) & ~(HUGE - 1), end & ~(HUGE - 1)
        if end > start:
            regions.append((start, end))
    return regions


def collapse() -> int:
    """Ask the kernel to back this process's anonymous regions with huge pages; the bytes it accepted."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        madvise = libc.madvise
        madvise.argtypes, madvise.restype = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int], ctypes.c_int
        with open("/proc/self/maps") as maps:
            regions = anonymous_regions(maps.read())
    except (OSError, AttributeError):
        return 0
    return sum(end - start for start, end in regions if madvise(start, end - start, MADV_COLLAPSE) == 0)
