# No Square at all: the answer reads a copy of the solutions kept outside the protected trees (a backup
# folder) and looks around the machine, and reports what it got through the error it raises.
# stopped by: the learner reads only what it needs (libraries, the course), not everything but a deny-list
import glob, os

_seen = {}
try:
    _text = open("{planted}").read()
    _at = _text.find("BEGIN SOLUTION")
    _seen["planted"] = _text[max(_at, 0):][:200]
except OSError as error:
    _seen["planted"] = "refused: " + type(error).__name__
for _folder in ["/etc", "/home", "/root", "/var", "/srv", "/work", "{planted_root}"]:
    try:
        _seen[_folder] = len(os.listdir(_folder))
    except OSError as error:
        _seen[_folder] = type(error).__name__
_others = [p for p in glob.glob("/*/*/solutions/*/*.ipynb") + glob.glob("/*/*/*/solutions/*/*.ipynb")][:3]
for _path in _others:
    try:
        _seen[_path] = "BEGIN SOLUTION" in open(_path).read()
    except OSError as error:
        _seen[_path] = type(error).__name__
raise RuntimeError("SAW " + repr(_seen))
