# A correct answer that then tries to change a file outside its allow-list, one it cannot even read: its
# mode (setuid, world-writable), owner, times and extended attributes; then reports what each call answered.
# stopped by: the identity (an unallocated uid owns nothing), the read-only root (the file is not in it),
# seccomp (the metadata calls are refused before the path is looked up)
import os

{CORRECT}

_tried = []
for _name, _call in [("chmod", lambda: os.chmod("{planted}", 0o4777)),
                     ("chown", lambda: os.chown("{planted}", os.getuid(), os.getgid())),
                     ("utime", lambda: os.utime("{planted}", (0, 0))),
                     ("setxattr", lambda: os.setxattr("{planted}", "user.answer", b"1")),
                     ("removexattr", lambda: os.removexattr("{planted}", "user.keep")),
                     ("read", lambda: open("{planted}").read())]:
    try:
        _call()
        _tried.append(f"{_name}=DONE")
    except OSError as _error:
        _tried.append(f"{_name}=refused({_error.errno})")
raise RuntimeError("REPORT " + " ".join(_tried))
