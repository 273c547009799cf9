# A correct Square whose answer cell leaves a message in SysV shared memory and a SysV message queue (and
# a POSIX message queue) for whatever answer is graded next: another student's, say.
# stopped by: an IPC namespace per grading (or seccomp refusing shmget, msgget, semget, mq_open)
import ctypes, ctypes.util, os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
_left = []
_id = _libc.shmget({key}, 4096, 0o1000 | 0o666)  # IPC_CREAT
if _id >= 0:
    _at = _libc.shmat(_id, None, 0)
    if _at not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(_at, b"{marker}-shm\0", len(b"{marker}-shm\0"))
        _left.append("shm")
_msq = _libc.msgget({key} + 1, 0o1000 | 0o666)  # a SysV message queue too
if _msq >= 0:
    _note = b"{marker}-msg"
    _buffer = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + len(_note))
    ctypes.memmove(ctypes.addressof(_buffer), ctypes.byref(ctypes.c_long(1)), ctypes.sizeof(ctypes.c_long))
    ctypes.memmove(ctypes.addressof(_buffer) + ctypes.sizeof(ctypes.c_long), _note, len(_note))
    _libc.msgsnd(_msq, _buffer, len(_note), 0o4000)  # IPC_NOWAIT
    _left.append("msg")
_mq_open = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True).mq_open
_mq_open.restype = ctypes.c_int
_mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
_q = _mq_open(b"/{marker}", os.O_CREAT | os.O_RDWR, 0o666, None)
if _q >= 0:
    _left.append("mq")
    _send = ctypes.CDLL(ctypes.util.find_library("rt") or None).mq_send
    _send(_q, b"{marker}-mq", len(b"{marker}-mq"), 0)
{CORRECT}
