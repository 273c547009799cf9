# No Square: the answer cell fills its working folder with files each under the per-file limit, {count}
# of {mb} MB, and reports how much it wrote.
# stopped by: a quota on the learner's folder (a size-capped filesystem), not only a per-file limit
import os

_written, _error = 0, ""
_block = b"x" * (1 << 20)
try:
    for _i in range({count}):
        with open(f"fill-{_i}.bin", "wb") as _f:
            for _ in range({mb}):
                _f.write(_block)
                _written += 1
except OSError as error:
    _error = type(error).__name__
raise RuntimeError(f"WROTE {_written} MB {_error}")
