# A correct answer that holds host memory no address-space limit counts: memfds written with write(),
# /dev/shm files, pipes filled to their largest size; then reports how much it held.
# stopped by: seccomp (no memfd_create or memfd_secret), the read-only root (no /dev/shm), the open-files
# limit (a few dozen pipes of 1 MB at most), the folder's tmpfs size
import ctypes, fcntl, os

{CORRECT}

_held, _notes = 0, []
_libc = ctypes.CDLL(None, use_errno=True)
for _ in range(128):
    _fd = _libc.syscall(319, b"held", 0)  # memfd_create
    if _fd < 0:
        _notes.append(f"memfd refused({ctypes.get_errno()})")
        break
    os.write(_fd, b"\0" * (30 << 20))
    _held += 30 << 20
try:
    with open("/dev/shm/held", "wb") as _f:
        _f.write(b"\0" * (100 << 20))
    _held += 100 << 20
except OSError as _error:
    _notes.append(f"shm refused({_error.errno})")
_pipes = []
try:
    while True:
        _r, _w = os.pipe()
        _pipes.append((_r, _w))
        fcntl.fcntl(_w, 1031, 1 << 20)  # F_SETPIPE_SZ
        os.set_blocking(_w, False)
        try:
            while True:
                _held += os.write(_w, b"\0" * 65536)
        except BlockingIOError:
            pass
except OSError as _error:
    _notes.append(f"pipes stopped at {len(_pipes)} ({_error.errno})")
raise RuntimeError(f"REPORT HELD {_held >> 20} MB " + " ".join(_notes))
