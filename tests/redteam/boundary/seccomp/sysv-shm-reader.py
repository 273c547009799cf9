# A wrong Square whose answer cell looks for what an earlier grading left in SysV shared memory and a SysV
# message queue (and a POSIX message queue), and shows it in its error.
# stopped by: an IPC namespace per grading (or seccomp refusing shmget, msgget, semget, mq_open)
import ctypes, ctypes.util, os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
_seen = {}
_id = _libc.shmget({key}, 0, 0)
_seen["shmget"] = _id if _id < 0 else "found"
if _id >= 0:
    _at = _libc.shmat(_id, None, 0o10000)  # SHM_RDONLY
    if _at not in (None, ctypes.c_void_p(-1).value):
        _seen["shm"] = ctypes.string_at(_at, 64).split(b"\0")[0].decode(errors="replace")
_msq = _libc.msgget({key} + 1, 0)
_seen["msgget"] = _msq if _msq < 0 else "found"
if _msq >= 0:
    _buffer = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + 256)
    _n = _libc.msgrcv(_msq, _buffer, 256, 0, 0o4000)  # IPC_NOWAIT
    _seen["msg"] = _buffer.raw[ctypes.sizeof(ctypes.c_long):][:max(_n, 0)].decode(errors="replace")
_rt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
_rt.mq_open.restype = ctypes.c_int
_rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
_q = _rt.mq_open(b"/{marker}", os.O_RDONLY | os.O_NONBLOCK)
_seen["mq_open"] = _q if _q < 0 else "found"
if _q >= 0:
    _buffer = ctypes.create_string_buffer(8192)
    _n = _rt.mq_receive(_q, _buffer, 8192, None)
    _seen["mq"] = _buffer.raw[:max(_n, 0)].decode(errors="replace")
{WRONG}
_forward = Square.forward
def forward(ctx, x):
    raise RuntimeError("FOUND " + repr(_seen))
Square.forward = staticmethod(forward)
