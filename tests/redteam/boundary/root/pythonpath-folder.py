# A correct answer that reads a folder on the grader's PYTHONPATH (where an instructor may keep other
# courses' code, tokens or answers) and reports what it found.
# stopped by: the read-only root (only the packages the grader imported are bound, never the folder that
# holds them), Landlock behind it
import os

{CORRECT}

_seen = []
for _call in (lambda: os.listdir("{folder}"), lambda: open("{folder}/secret.txt").read()):
    try:
        _seen.append(repr(_call()))
    except OSError as _error:
        _seen.append(f"refused({_error.errno})")
raise RuntimeError("REPORT " + " ".join(_seen))
