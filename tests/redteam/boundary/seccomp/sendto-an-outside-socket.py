# A correct answer that sends datagrams to a Unix socket of another program on the host, by path: from a
# socket of its own, and from every socket it inherited (sendto and sendmsg with an address).
# stopped by: seccomp (no socket creation, no sendto with an address), the read-only root (the path is not
# there), the network namespace behind them
import os, socket, stat

{CORRECT}

_tried = []
try:
    _own = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    _own.sendto(b"FROM-THE-SANDBOX", "{path}")
    _tried.append("own=SENT")
except OSError as _error:
    _tried.append(f"own=refused({_error.errno})")
for _fd in range(3, 64):
    try:
        if not stat.S_ISSOCK(os.fstat(_fd).st_mode):
            continue
        _s = socket.socket(fileno=os.dup(_fd))
    except OSError:
        continue
    for _name, _call in [("sendto", lambda: _s.sendto(b"FROM-THE-SANDBOX", "{path}")),
                         ("sendmsg", lambda: _s.sendmsg([b"FROM-THE-SANDBOX"], [], 0, "{path}"))]:
        try:
            _call()
            _tried.append(f"{_fd}:{_name}=SENT")
        except OSError as _error:
            _tried.append(f"{_fd}:{_name}=refused({_error.errno})")
    _s.detach()
raise RuntimeError("REPORT " + " ".join(_tried))
