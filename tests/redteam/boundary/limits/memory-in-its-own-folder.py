# A correct answer that fills its own folder (a tmpfs: host memory) past what the sandbox may hold in all,
# in files each under the per-file limit, then reports how much it wrote.
# stopped by: the memory cgroup (tmpfs pages are charged to the sandbox: the kernel ends it), where one can
# be made; the folder's own size behind it
import os

{CORRECT}

_written = 0
try:
    for _i in range(100):
        with open(f"fill-{_i}", "wb") as _f:
            for _ in range(10):
                _f.write(b"\1" * (1 << 20))
                _written += 1 << 20
except OSError as _error:
    pass
raise RuntimeError(f"REPORT WROTE {_written >> 20} MB")
