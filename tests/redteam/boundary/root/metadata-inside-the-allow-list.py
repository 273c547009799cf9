# A correct answer that tries to break the files every later grading reads (the grading package's own
# checks, a site-packages file): chmod 000, times, extended attributes, an append; then reports the answers.
# stopped by: the read-only root (EROFS), seccomp (the metadata calls), the identity (it owns none of them)
import os

{CORRECT}

_tried = []
for _path in {victims}:
    for _name, _call in [("chmod", lambda: os.chmod(_path, 0)), ("utime", lambda: os.utime(_path, (0, 0))),
                         ("setxattr", lambda: os.setxattr(_path, "user.answer", b"1")),
                         ("append", lambda: open(_path, "a").write("#"))]:
        try:
            _call()
            _tried.append(f"{_name}=DONE")
        except OSError as _error:
            _tried.append(f"{_name}=refused({_error.errno})")
raise RuntimeError("REPORT " + " ".join(_tried))
