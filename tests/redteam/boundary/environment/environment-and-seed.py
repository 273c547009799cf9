# A correct answer that reports every environment it can reach: its own (Python's and the C one), the
# environment blocks of the processes it can see, and the course's base seed as the checks know it.
# stopped by: the environment (an allow-list, from the root process down), the judge (no seed in the
# learner's process), the PID namespace (no grader process to read)
import ctypes, os

{CORRECT}

from autograder.engine import shared as _shared
_seen = [f"SEED {_shared.base_seed()}", repr(dict(os.environ))]
_libc = ctypes.CDLL(None)
_libc.getenv.restype = ctypes.c_char_p
for _key in ("PGPASSWORD", "AUTOGRADER_SEED", "COURSE_TOKEN"):
    _seen.append(f"{_key}={_libc.getenv(_key.encode())}")
for _pid in ["self", "1", "2", str(os.getppid())]:
    try:
        _seen.append(open(f"/proc/{_pid}/environ", "rb").read().replace(b"\0", b" ").decode(errors="replace"))
    except OSError as _error:
        _seen.append(f"{_pid}: refused({_error.errno})")
raise RuntimeError("REPORT " + " | ".join(_seen).replace("\n", " ")[:3500])
