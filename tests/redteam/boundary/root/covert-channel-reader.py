# The later grading (an empty answer): reads back whatever an earlier one may have left, and reports it.
# stopped by: see covert-channel-writer
import os

_found = []
_shared = os.path.dirname(os.__file__) + "/os.py"
for _name, _call in [("xattr", lambda: os.getxattr(_shared, "user.answer")),
                     ("mtime", lambda: b"ANSWER-LEFT-BEHIND" if int(os.stat(_shared).st_mtime) == 1234567 else b""),
                     ("tmp", lambda: open("/tmp/channel", "rb").read()),
                     ("shm", lambda: open("/dev/shm/channel", "rb").read()),
                     ("home", lambda: open(os.path.expanduser("~/channel"), "rb").read()),
                     ("folder", lambda: open("channel", "rb").read())]:
    try:
        if b"ANSWER-LEFT-BEHIND" in _call():
            _found.append(_name)
    except OSError:
        pass
raise RuntimeError("FOUND " + (" ".join(_found) or "nothing"))
