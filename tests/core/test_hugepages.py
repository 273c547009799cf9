"""The root's memory in huge pages (autograder/engine/sandbox/hugepages.py): which regions it asks for, that the
kernel takes the request, that the root process of a real sandbox holds its inherited memory that way, and that
a fork writing into a huge page changes nothing its parent sees."""

from __future__ import annotations

import mmap
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.engine.sandbox import hugepages

MB = 1 << 20
MAPS = """\
55d0aa000000-55d0aa600000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000a00000 rw-p 00000000 00:00 0 
7f0000a00000-7f0000b00000 rw-p 00000000 00:00 0 
7f0001000000-7f0001400000 r--p 00000000 08:01 1234                       /usr/lib/libtorch_cpu.so
7f0002000000-7f0002400000 rw-p 00100000 08:01 1234                       /usr/lib/libtorch_cpu.so
7f0003000000-7f0003400000 rw-s 00000000 00:05 77                         /dev/zero (deleted)
7f0004100000-7f0004500000 rw-p 00000000 00:00 0 
7ffd00000000-7ffd00400000 rw-p 00000000 00:00 0                          [stack]
"""


def test_only_private_writable_anonymous_memory_is_asked_for_in_whole_huge_pages():
    regions = hugepages.anonymous_regions(MAPS)
    assert regions == [
        (0x55d0aa000000, 0x55d0aa600000),  # the heap, already aligned: 3 huge pages
        (0x7f0000000000, 0x7f0000a00000),  # unnamed, 10 MiB: 5
        (0x7f0004200000, 0x7f0004400000),  # unaligned 4 MiB: the one whole 2 MiB page inside it
    ]  # the 1 MiB region, the library's data, a shared mapping and the stack are left alone
    assert all(start % hugepages.HUGE == 0 and end % hugepages.HUGE == 0 for start, end in regions)


def anon_huge_kb(pid="self") -> int:
    with open(f"/proc/{pid}/smaps") as smaps:
        return sum(int(line.split()[1]) for line in smaps if line.startswith("AnonHugePages:"))


def thp_available() -> bool:
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as setting:
            return "[never]" not in setting.read()
    except OSError:
        return False


needs_thp = pytest.mark.skipif(not thp_available(), reason="transparent huge pages are off on this kernel")


@needs_thp
def test_the_kernel_backs_a_touched_region_with_huge_pages_and_a_fork_keeps_its_own_writes():
    before = anon_huge_kb()
    region = mmap.mmap(-1, 16 * MB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    region.write(b"\x01" * (16 * MB))  # touched: 4,096 small pages
    accepted = hugepages.collapse()
    if accepted == 0:
        pytest.skip("this kernel has no MADV_COLLAPSE (Linux 6.1)")
    assert anon_huge_kb() - before >= 12 * 1024  # at least 6 of the region's 8 huge pages (it may be unaligned)
    pid = os.fork()
    if pid == 0:  # the child writes into the huge pages it shares with us
        region[0:4] = b"kid!"
        region[8 * MB:8 * MB + 4] = b"kid!"
        os._exit(0 if region[0:4] == b"kid!" else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert region[0:4] == b"\x01" * 4 and region[8 * MB:8 * MB + 4] == b"\x01" * 4
    region.close()


@needs_thp
def test_a_class_root_holds_what_its_forks_inherit_in_huge_pages(monkeypatch):
    """A root of its own (a class's: autograde's), not the one this test process shares."""
    from autograder.engine.sandbox import Sandbox, handle

    monkeypatch.setattr(handle, "_root", {})
    try:
        with Sandbox(for_a_class=True) as sandbox:
            graded = sandbox.run([("answer_x", "x = 1\n")], [("test_x", "assert x == 1\n")])  # once prepared
            outcome = graded.outcomes[0]
            assert outcome.status == "passed", outcome.feedback
            assert anon_huge_kb(sandbox.pid) >= 100 * 1024, "the root's imports are not in huge pages"
    finally:
        if handle._root.get("process") is not None:
            handle._root["process"].kill()
            handle._root["process"].wait()
            handle._root["control"].close()


@needs_thp
@pytest.mark.skipif(os.geteuid() != 0, reason="becomes an unprivileged user, which only root can")
def test_an_unprivileged_grading_account_gets_huge_pages_too():
    """A hub's or Gradescope's grading account has no capability: MADV_COLLAPSE needs none. The module's own
    source runs as uid 65534 (from the command line, so no folder of the checkout has to be readable)."""
    driver = ("\nimport mmap\nregion = mmap.mmap(-1, 16 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)\n"
              "region.write(b'1' * (16 << 20))\nprint(collapse() >> 20)\n")
    source = Path(hugepages.__file__).read_text() + driver
    run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-I",
                          "-c", source], capture_output=True, text=True, timeout=60, cwd="/")
    if run.returncode != 0 and "ermission denied" in run.stderr:
        pytest.skip(f"uid 65534 cannot run {sys.executable} here")
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) >= 12, run.stdout
