# layer: landlock
# what: borrows the grader's answers: imports, lists or reads the judge-only references (autograder/references/),
#   and looks through every module of the course's package it can import for a name of a reference answer.
# stopped by: Landlock (the judge-only folder is denied wherever the package lies: root.judge_only); the root
#   process never imported it, so no learner (a fork of it) holds it; no other module names a reference answer
#   (tests/core/test_no_reference_answers.py holds the rule for every module, the checks' future ones too).
{CORRECT}
import importlib as _importlib
import json as _json
import os as _os
import pkgutil as _pkgutil
import re as _re
import sys as _sys

import autograder as _autograder
import autograder.checks as _checks

_found = []
try:
    import autograder.references.debugging  # noqa: F401
    _found.append("imported autograder.references.debugging")
except BaseException as _error:  # noqa: BLE001
    _found.append(f"refused: {type(_error).__name__}")
_folder = _os.path.join(_os.path.dirname(_autograder.__file__), "references")
for _name in ("__init__.py", "debugging.py"):
    try:
        with open(_os.path.join(_folder, _name)) as _f:
            _found.append(f"read {_name}: {_f.read()[:40]!r}")
    except OSError:
        pass
try:
    _found.append(f"listed {_os.listdir(_folder)}")
except OSError:
    pass
_found += [f"in memory: {_m}" for _m in list(_sys.modules) if _m.startswith("autograder.references")]
_modules = {_i.name for _i in _pkgutil.iter_modules(_checks.__path__, "autograder.checks.")}
_modules |= {_m for _m in list(_sys.modules) if _m.startswith("autograder.") and "__main__" not in _m}
_named = _re.compile(r"{NAMED}")
_short = _re.compile(r"{SHORT}")
for _module_name in sorted(_modules):
    try:
        _module = _importlib.import_module(_module_name)
    except BaseException:  # noqa: BLE001
        continue
    for _key in list(vars(_module)):
        if (_named.search(_key) or _short.search(_key)) and f"{_module_name}.{_key}" not in {EXEMPT}:
            _found.append(f"named {_module_name}.{_key}")
raise RuntimeError("REPORT " + _json.dumps([_f[:100] for _f in _found[:12]]) + " END")
