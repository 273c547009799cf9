"""Grade your own notebook from inside JupyterLab, with the same hidden tests the instructor uses.

    from autograder.selfcheck import grade_this_notebook
    grade_this_notebook("01_square.ipynb")

It grades the SAVED file (save first: Ctrl+S) in the grader's sandbox and prints a table of results. The sandbox's
root process (PyTorch and the checks, imported once: most of a first self-check's time) is this kernel's: started at
its first self-check, kept for the kernel's session, ended with it (at exit, and by the root itself when the kernel
is gone), so every self-check after the first costs only the notebook's grading. In a Jupyter kernel, the first
import of the course's package (a lesson's figure, a visible test) already starts it, in the background
(`start_root_ahead`): the learner reads and writes meanwhile, and the first self-check finds it ready
(AUTOGRADER_EARLY_ROOT=0 waits for the first self-check instead). It runs in a session of its own, so
the kernel's interrupts (SIGINT to the kernel's process group) are not its own, and it runs its notebook's
warm-ups once; a self-check after it died starts another. Each grading is as `python -m
autograder grade` does it: a judge of its own and a fresh learner's sandbox, a fresh copy of it per test.

The name is a hint, not the last word: in a renamed copy or a JupyterLab "Duplicate" ("01_square-Copy1.ipynb")
the cell still says "01_square.ipynb", so the notebook to grade is found as `grade` finds its course notebook,
by content. First the notebook this kernel was started for (Jupyter tells the kernel its path), when its cells
come from the same course notebook; then, among the notebooks beside the named one whose cells come from that
course notebook, the named file if it is the only one, else the one saved last.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from pathlib import Path


def grade_this_notebook(path: str, show: bool = True, timeout: float = 900) -> dict | None:
    """Grade the saved notebook. Shows a table (and returns None) or, with show=False, returns the report."""
    if os.environ.get("NBGRADER_EXECUTION"):  # nbgrader is grading or validating this notebook itself
        print("(self-check skipped: nbgrader is running this notebook)")
        return None
    named = Path(path)
    if hasattr(os, "fork"):
        _start_kernels_root(named.stem)  # it imports PyTorch while this kernel finds and reads the notebook
    path = find_notebook(named)
    if path.name != named.name:
        print(f"(grading {path.name}, this notebook's saved file: its cells come from {named.stem})")
    report = _grade_warm(path, timeout) if hasattr(os, "fork") else _preview(path, timeout)
    if show:
        _display(report)
        return None  # the table says it all; a returned dict would be echoed below it
    return report


_TOO_LONG = ("grading took longer than {timeout} s; try `python -m autograder grade {name}` in a terminal to see its "
             "progress")
_WARM: dict = {}  # this kernel's grading sandbox ("sandbox") and its root's warm-ups ("warm_ups"), once started


def _grade_warm(path: Path, timeout: float) -> dict:
    """The report `python -m autograder grade PATH --json` gives, graded by this kernel's own grading root (started
    here the first time, in this thread; the grading itself in a thread of its own, so that `timeout` bounds the
    wait)."""
    import threading

    from autograder.engine import grading, notebooks
    from autograder.engine.sandbox import Limits

    try:
        submission = notebooks.submission_from_path(path)  # bad input fails fast, before the sandbox
    except notebooks.NotebookError as error:
        raise RuntimeError(f"error: {error}") from None
    sandbox = _WARM.get("sandbox")
    if sandbox is None:  # the handle on the root _start_kernels_root started (or another, the same way)
        sandbox = _WARM["sandbox"] = grading.new_sandbox(own_session=True, warm_ups=_WARM.get("warm_ups", ()))
        sandbox.start()
    done: dict = {}
    limits = Limits(isolation=os.environ.get("AUTOGRADER_ISOLATION", "full"))  # the command's, unless told

    def grade() -> None:
        try:
            report, _ = grading.grade_submission(submission, sandbox, seed=grading.base_seed(), limits=limits,
                                                 autograded=False)
            done["report"] = json.loads(json.dumps(report.to_json()))  # as the command's JSON reads back
        except BaseException as error:  # noqa: BLE001 - raised in the caller's thread below
            done["error"] = error

    worker = threading.Thread(target=grade, name="self-check", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise RuntimeError(_TOO_LONG.format(timeout=timeout, name=path.name))
    if "error" in done:
        raise RuntimeError(f"grading failed: {done['error']}") from done["error"]
    return done["report"]


def _start_kernels_root(stem: str) -> None:
    """Start this kernel's grading root if it is not running: out of the kernel's process group (the kernel's
    interrupts are not the root's; it still leaves when the kernel ends, root._parent_alive), and warmed once for
    the tests of the course notebook `stem` (the name the self-check cell gives). Only the sandbox's handle is
    imported first (not nbformat, which the finding of the notebook imports meanwhile)."""
    from autograder.engine.sandbox import handle

    if "warm_ups" not in _WARM:
        _WARM["warm_ups"] = _warm_ups_of(stem)
        atexit.register(stop_grading_root)
    handle.Sandbox(own_session=True, warm_ups=_WARM["warm_ups"]).start()


def start_root_ahead(session: str | None = None) -> bool:
    """In a Jupyter kernel, start its grading root now, in the background, warmed for the course notebook the
    kernel runs (Jupyter's session path `session` names it; a copy's name, "01_square-Copy1.ipynb", too), so that
    the learner's first self-check does not wait for its imports. Nothing outside a kernel, under nbgrader, with
    AUTOGRADER_EARLY_ROOT=0, without fork, or once started. Whether it started one."""
    if ("warm_ups" in _WARM or os.environ.get("NBGRADER_EXECUTION") or os.environ.get("AUTOGRADER_EARLY_ROOT") == "0"
            or not hasattr(os, "fork") or not _in_a_jupyter_kernel()):
        return False
    try:
        _start_kernels_root(_course_stem(session if session is not None else _session_path()))
    except (OSError, RuntimeError):  # the first self-check starts it, and says why if it cannot
        _WARM.pop("warm_ups", None)
        return False
    return True


def _in_a_jupyter_kernel() -> bool:
    """This process is an IPython kernel's (ipykernel's shell), not a terminal's IPython or a grader's process."""
    if "ipykernel" not in sys.modules:  # (no import here: a process without it is no kernel)
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _course_stem(session: str | None) -> str:
    """The course notebook whose name the session's file name starts with ("" if none): its longest such name."""
    from autograder import paths

    name = Path(session).stem if session else ""
    try:
        names = [p.name for p in paths.SOLUTIONS.iterdir() if p.is_dir()]
    except OSError:
        return ""
    return max((n for n in names if name.startswith(n)), key=len, default="")


def _warm_ups_of(stem: str) -> tuple:
    """The warm-ups (warm.RUN's names) the test cells of course notebook `stem` ask for, read as plain JSON
    (notebooks.role's test cells: graded code cells); none for a name that is no course notebook's."""
    from autograder import paths
    from autograder.engine.sandbox import warm

    try:
        cells = json.loads((paths.SOLUTIONS / stem / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
        tests = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells
                 if c.get("cell_type") == "code" and (c.get("metadata", {}).get("nbgrader") or {}).get("grade")]
        return tuple(warm.needed(tests))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ()


def grading_root() -> int | None:
    """The pid of this kernel's grading root, while it runs (None before the first self-check)."""
    from autograder.engine.sandbox import handle

    return handle.running_root()


def stop_grading_root() -> None:
    """End this kernel's grading root (at the kernel's exit; the root also leaves by itself once the kernel is
    gone). The next self-check starts another."""
    from autograder.engine.sandbox import handle

    _WARM.pop("sandbox", None)
    handle.stop_root()


def _preview(path: Path, timeout: float) -> dict:
    """Where there is no fork: the preview's grading, in a Python process of its own."""
    try:
        run = subprocess.run([sys.executable, "-c", PREVIEW, str(path)], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(_TOO_LONG.format(timeout=timeout, name=path.name)) from None
    if run.returncode != 0:
        raise RuntimeError(run.stderr.strip() or "grading failed")
    return json.loads(run.stdout)


NO_FORK_NOTE = ("A preview: this computer cannot start the grader's sandbox (it needs fork, which Windows has only "
                "under WSL), so your answers ran in a plain Python process, without its time and memory limits; "
                "your instructor's grade comes from the sandbox.")

# Where the platform has no fork: the same grading of the same saved file, through the in-process runner, in a
# Python process of its own (so a crash or a loop in the answers leaves this kernel alone), with the note above.
PREVIEW = f"""
import json, sys
from autograder.engine import grading, notebooks
from autograder.engine.notebooks import NotebookError
from autograder.engine.runners import InProcessRunner
try:
    submission = notebooks.submission_from_path(sys.argv[1])
except NotebookError as error:
    sys.exit(f"error: {{error}}")
report, _ = grading.grade_submission(submission, InProcessRunner(), seed=grading.base_seed(), autograded=False)
data = report.to_json()
data["notes"] = [{NO_FORK_NOTE!r}] + list(data.get("notes", []))
print(json.dumps(data))
"""


def find_notebook(path: str | Path, session: str | None = None) -> Path:
    """The saved notebook to grade for a self-check cell that names `path` (see the module's docstring).
    `session` is the path of the notebook this kernel runs, when known (by default, what Jupyter told it)."""
    from autograder.engine import notebooks

    named = Path(path).resolve()
    sources = notebooks.sources()
    wanted = next((s for s in sources if s.name == named.stem), None)
    if wanted is None:                       # not a course notebook's name: grade what was named, as named
        if not named.exists():
            raise FileNotFoundError(f"{named} not found: pass this notebook's file name, e.g. '01_square.ipynb'")
        return named

    def comes_from_wanted(candidate: Path) -> bool:
        try:
            return notebooks.match_source(notebooks.read(candidate), candidate.name, sources).path == wanted.path
        except notebooks.NotebookError:
            return False

    running = _existing_notebook(session if session is not None else _session_path())
    if running is not None and comes_from_wanted(running):
        return running
    beside = sorted(p.resolve() for p in named.parent.glob("*.ipynb") if comes_from_wanted(p))
    if named.exists() and beside in ([], [named]):
        return named
    if not beside:
        raise FileNotFoundError(f"{named} not found, and no notebook in {named.parent} comes from {wanted.name}: "
                                f"save this notebook (Ctrl+S) and pass its file name, e.g. '{wanted.name}.ipynb'")
    return max(beside, key=lambda p: p.stat().st_mtime)


def _session_path() -> str | None:
    """The path of the notebook this kernel was started for: Jupyter's session name (ipykernel puts it in
    `__session__`, jupyter_server in JPY_SESSION_NAME), or VS Code's `__vsc_ipynb_file__`."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    names = shell.user_ns if shell is not None else {}
    for value in (names.get("__session__"), names.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME")):
        if isinstance(value, str) and value:
            return value
    return None


def _existing_notebook(path: str | None) -> Path | None:
    """`path` as a saved notebook file, or None (no path, a session id rather than a path, a renamed file)."""
    if not path:
        return None
    candidate = Path(path)
    for where in (candidate, Path.cwd() / candidate.name):
        if where.suffix == ".ipynb" and where.is_file():
            return where.resolve()
    return None


def _display(report: dict) -> None:
    rows = "".join(
        f"<tr><td>{'✅' if c['status'] == 'passed' else '❌'}</td><td><code>{c['grade_id']}</code></td>"
        f"<td>{c['points']:g} / {c['max_points']:g}</td><td>{_escape(c['feedback'])}</td></tr>"
        for c in report["cells"])
    notes = "".join(f"<p><em>{_escape(note)}</em></p>" for note in report.get("notes", []) if note == NO_FORK_NOTE)
    html = (f"<h4>{report['notebook']}: {report['score']:g} / {report['max_score']:g}</h4>{notes}"
            f"<table><tr><th></th><th>test</th><th>points</th><th>feedback</th></tr>{rows}</table>")
    try:
        from IPython.display import HTML, display

        display(HTML(html))
    except ImportError:  # plain Python
        print(_text(report))


def _text(report: dict) -> str:
    lines = [f"{report['notebook']}: {report['score']:g} / {report['max_score']:g}"]
    lines += [f"  ({note})" for note in report.get("notes", []) if note == NO_FORK_NOTE]
    lines += [f"  {'PASS' if c['status'] == 'passed' else c['status'].upper():7} {c['grade_id']}: "
              f"{c['points']:g}/{c['max_points']:g}  {'' if c['status'] == 'passed' else c['feedback']}"
              for c in report["cells"]]
    return "\n".join(lines)


def _escape(text: str) -> str:
    import html

    return html.escape(text)
