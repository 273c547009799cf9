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
    from autograder.engine.sandbox import Limits

    limits = Limits(isolation=level)
    for key, value in config.get("limits", {}).items():
        if key in Limits.__dataclass_fields__ and key != "isolation" and value is not None:
            setattr(limits, key, type(getattr(limits, key))(value))
    if seconds_cap is not None and seconds_cap < limits.seconds_per_test:
        limits.seconds_per_test = max(1.0, float(seconds_cap))
    return limits


def reached(isolation: dict) -> str:
    """The level the measured layers amount to: "full" (namespaces, Landlock, seccomp), "no-namespaces"
    (Landlock and seccomp) or "none"."""
    if isolation.get("namespaces") and isolation.get("landlock") and isolation.get("seccomp"):
        return "full"
    if isolation.get("landlock") and isolation.get("seccomp"):
        return "no-namespaces"
    return "none"


def at_least(level: str, weakest: str) -> bool:
    return level in LEVELS and LEVELS.index(level) <= LEVELS.index(weakest)


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
    """grading's sandbox, with the grading copies protected too."""
    from autograder.engine import grading

    sandbox = grading.new_sandbox()
    if isinstance(getattr(sandbox, "protected", None), list):
        sandbox.protected.append(str(paths.ROOT / GRADING_DIR))
    return sandbox


def grade_with_fallback(text: str, name: str, source, config: dict, seconds_cap: float | None = None):
    """Grade at the strongest level this machine gives, among those the instructor allows (allowed_levels).
    The level comes from the isolation probe alone, measured before any answer runs: a level that cannot
    start, or reaches fewer layers, gives way to the next allowed one, never to "none". Once a probe holds,
    the submission is graded there once: nothing its answers do (a value the grader cannot read, a grader
    error) makes it regraded at a weaker level. Returns (report, level, [why each stronger level was not
    used]); GradingUnavailable when no allowed level works."""
    from autograder.engine import grading

    levels = allowed_levels(config)
    weakest = levels[-1]
    failures = []
    for level in levels:
        limits = level_limits(config, level, seconds_cap)
        try:
            with new_sandbox() as sandbox:
                probe = sandbox.grade([], [("isolation", "pass\n")], limits=limits)["outcomes"][0]  # no answer yet
                measured = probe.details.get("isolation") if type(probe.details.get("isolation")) is dict else {}
                if probe.status != "passed":
                    failures.append(f"{level}: the sandbox did not start ({probe.feedback.rstrip('.')})")
                    continue
                if not at_least(reached(measured), weakest):
                    failures.append(f"{level}: only {grading.describe_isolation(measured)} could be put in force")
                    continue
                report, _ = grading.grade_text(text, name, sandbox, config.get("seed", 0), limits, [source])
        except grading.NotebookError:
            raise
        except Exception as error:  # noqa: BLE001 - the sandbox could not start at this level (no answer ran)
            failures.append(f"{level}: {type(error).__name__}: {error}")
            continue
        if report.isolation and not at_least(reached(report.isolation), weakest):  # never a regrade weaker
            raise GradingUnavailable(f"the grading at {level!r} ran with {grading.describe_isolation(report.isolation)}"
                                     f" only, below the weakest allowed ({weakest!r})")
        return report, level, failures
    raise GradingUnavailable("no isolation level this autograder may use could start here (" + "; ".join(failures)
                             + f"); the weakest allowed is {weakest!r}")


def isolation_sentence(isolation: dict, level: str, failures: list[str]) -> str:
    from autograder.engine import grading

    layers = grading.describe_isolation(isolation) if isolation else "not measured"
    if isolation.get("strong"):
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
