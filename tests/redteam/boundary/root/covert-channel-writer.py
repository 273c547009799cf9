# One grading leaves its answer's source for a later one, in every place a file system offers: extended
# attributes and times of a file on the allow-list, files in /tmp, /dev/shm, the home, its folder.
# stopped by: the read-only root and seccomp (no attribute or time changes anywhere); a fresh tmpfs folder
# and /tmp per sandbox (nothing written outlives it)
import os, inspect

{CORRECT}

_message = b"ANSWER-LEFT-BEHIND"
_done = []
_shared = os.path.dirname(os.__file__) + "/os.py"
for _name, _call in [("xattr", lambda: os.setxattr(_shared, "user.answer", _message)),
                     ("mtime", lambda: os.utime(_shared, (1234567, 1234567))),
                     ("tmp", lambda: open("/tmp/channel", "wb").write(_message)),
                     ("shm", lambda: open("/dev/shm/channel", "wb").write(_message)),
                     ("home", lambda: open(os.path.expanduser("~/channel"), "wb").write(_message)),
                     ("folder", lambda: open("channel", "wb").write(_message))]:
    try:
        _call()
        _done.append(_name)
    except OSError:
        pass
raise RuntimeError("WROTE " + " ".join(_done))
