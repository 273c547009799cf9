"""What a Gradescope grading runs under: the strongest isolation level this machine gives among those the
instructor allows (each measured before any answer runs), and, after it, no process of the grading left alive."""

from __future__ import annotations

import ctypes
import os
import signal
import time

from autograder import paths
from autograder.classroom.gradescope.settings import DEFAULT_WEAKEST, GRADING_DIR, LEVELS, GradingUnavailable

PR_SET_CHILD_SUBREAPER = 36


def level_limits(config: dict, level: str, seconds_cap: float | None = None):
    """gradescope.json's limits at `level`, each test's time cut to `seconds_cap` (Limits.from_settings)."""
    from autograder.engine.sandbox import Limits

    return Limits.from_settings(config.get("limits", {}), level, seconds_cap)


def allowed_levels(config: dict) -> list[str]:
    """The levels this autograder may grade at, strongest first: from the start level (gradescope.json's
    "isolation", or $AUTOGRADER_ISOLATION; default full) down to the instructor's "weakest_isolation"
    (default no-namespaces). GradingUnavailable for "none" or a start weaker than the weakest."""
    start = os.environ.get("AUTOGRADER_ISOLATION") or config.get("isolation") or "full"
    weakest = config.get("weakest_isolation") or DEFAULT_WEAKEST
    for name, value in (("isolation", start), ("weakest_isolation", weakest)):
        if value not in LEVELS:
            raise GradingUnavailable(f"the autograder is set to grade at isolation {value!r} ({name}), and "
                                     f"Gradescope grades only at {' or '.join(LEVELS)}")
    levels = list(LEVELS[LEVELS.index(start):LEVELS.index(weakest) + 1])
    if not levels:
        raise GradingUnavailable(f"the autograder's start level {start!r} is weaker than the weakest it may use "
                                 f"({weakest!r})")
    return levels


def new_sandbox():
    """grading's sandbox, with the grading copies protected too: the runner a Gradescope run grades with."""
    from autograder.engine import grading

    sandbox = grading.new_sandbox()
    if isinstance(getattr(sandbox, "protected", None), list):
        sandbox.protected.append(str(paths.ROOT / GRADING_DIR))
    return sandbox


def grade_with_fallback(runner, text: str, name: str, source, config: dict, seconds_cap: float | None = None):
    """Grade through `runner` at the strongest level this machine gives, among those the instructor allows
    (allowed_levels). The level comes from the runner's probe alone (an empty notebook, before any answer runs):
    a level that cannot start, or reaches fewer layers, gives way to the next allowed one, never to "none". Once a
    probe holds, the submission is graded there once: nothing its answers do (a value the grader cannot read, a
    grader error) makes it regraded at a weaker level. Returns (report, level, [why each stronger level was not
    used]); GradingUnavailable when no allowed level works."""
    from autograder.engine import grading

    levels = allowed_levels(config)
    weakest = levels[-1]
    failures = []
    for level in levels:
        limits = level_limits(config, level, seconds_cap)
        try:
            probe = runner.probe(limits)  # no answer yet
            if probe.outcomes[0].status != "passed":
                failures.append(f"{level}: the sandbox did not start ({probe.outcomes[0].feedback.rstrip('.')})")
                continue
            if probe.isolation is None or not probe.isolation.at_least(weakest):
                failures.append(f"{level}: only {_layers(probe.isolation)} could be put in force")
                continue
            report, _ = grading.grade_text(text, name, runner, config.get("seed", 0), limits, [source])
        except grading.NotebookError:
            raise
        except Exception as error:  # noqa: BLE001 - the sandbox could not start at this level (no answer ran)
            failures.append(f"{level}: {type(error).__name__}: {error}")
            continue
        if report.isolation is not None and not report.isolation.at_least(weakest):  # never a regrade weaker
            raise GradingUnavailable(f"the grading at {level!r} ran with {report.isolation.describe()}"
                                     f" only, below the weakest allowed ({weakest!r})")
        return report, level, failures
    raise GradingUnavailable("no isolation level this autograder may use could start here (" + "; ".join(failures)
                             + f"); the weakest allowed is {weakest!r}")


def _layers(isolation) -> str:
    return isolation.describe() if isolation is not None else "not measured"


def isolation_sentence(isolation, level: str, failures: list[str]) -> str:
    """What results.json says of the isolation a notebook was graded with (an Isolation, or None)."""
    layers = _layers(isolation)
    if isolation is not None and isolation.strong:
        text = f"Isolation: full ({layers})."
    else:
        text = (f"Isolation: {layers} (level {level!r}). Not every layer was in force here, so the grader ran "
                "with the isolation it can have, at or above the weakest your instructor allows: the verdicts "
                "are computed outside your code's process as always.")
    if failures:
        text += " Stronger levels failed here: " + "; ".join(failures)
    return text


# ------------------------------------------------------------------------- nothing survives the grading

def become_subreaper() -> bool:
    """Orphans of this process's descendants (a double-forked daemon) become its children, not init's."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(pid: int | None = None) -> list[int]:
    """Every live process below `pid` (default: this one), from /proc."""
    pid = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def end_descendants(rounds: int = 200) -> int:
    """SIGKILL every descendant until none is left (a process that forks meanwhile is found next round; as a
    subreaper this process inherits every orphan), reaping them. How many were killed."""
    killed = 0
    for _ in range(rounds):
        found = descendants()
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if not found:
            break
        time.sleep(0.01)
    return killed
