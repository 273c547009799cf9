"""Late work: what `collect` records of a submission's lateness, and the late policy `autograde` applies (as nbgrader's
LateSubmissionPlugin: none, zero, or subtract a penalty per started hour late, as its SubMarks example does).

collect writes `submitted/<student>/<assignment>/lateness.json` beside each submission:

    {"late": true, "submitted": "2024-01-09T10:15:00", "due": "2024-01-08T23:59:00", "hours_late": 11,
     "evidence": "Moodle's submission time 2024-01-09T10:15:00, after the due date 2024-01-08T23:59:00"}

Canvas marks a late file in its name (`doejane_LATE_...`) without saying how late (hours_late null: the subtract
policy counts one hour). Moodle's download stores each file's submission time as its zip time: late when
collect is given `--due` and the time is after it. Other downloads record no lateness.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path

POLICIES = ("none", "zero", "subtract")
FILE = "lateness.json"


def parse_due(text: str | None) -> str | None:
    """`--due` as ISO 8601 (`2024-01-08 23:59` or `2024-01-08T23:59:00`); ValueError with a sentence otherwise."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.strip()).replace(tzinfo=None).isoformat(timespec="seconds")
    except ValueError:
        raise ValueError(f"--due {text!r}: write the due date as 2024-01-08 23:59 (the LMS's local time, as "
                         "its download stores submission times)") from None


def of(origin, due: str | None) -> dict:
    """The lateness record of a file handed in by `origin` (layouts.Origin) for an assignment due `due`."""
    if origin.late:
        return {"late": True, "submitted": origin.submitted or None, "due": due, "hours_late": None,
                "evidence": f"{origin.lms.capitalize()} marked the file late (LATE_ in its name)"}
    if origin.submitted and due and origin.submitted > due:
        seconds = (datetime.fromisoformat(origin.submitted) - datetime.fromisoformat(due)).total_seconds()
        return {"late": True, "submitted": origin.submitted, "due": due, "hours_late": math.ceil(seconds / 3600),
                "evidence": f"{origin.lms.capitalize()}'s submission time {origin.submitted}, after the due date "
                            f"{due}"}
    return {"late": False, "submitted": origin.submitted or None, "due": due, "hours_late": 0, "evidence": ""}


def record(folder: Path, origin, due: str | None = None) -> dict:
    from autograder.classroom.submissions import atomic_write

    entry = of(origin, due)
    atomic_write(folder / FILE, json.dumps(entry, indent=1) + "\n")
    return entry


def read(folder: Path) -> dict:
    try:
        data = json.loads((folder / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"late": False}
    return data if isinstance(data, dict) else {"late": False}


def penalty(entry: dict, score: float, policy: str, per_hour: float) -> float:
    """The points a late submission loses under `policy` (never more than its score)."""
    if not entry.get("late") or policy == "none":
        return 0.0
    if policy == "zero":
        return float(score)
    hours = entry.get("hours_late") or 1
    return float(min(score, per_hour * hours))


def parse_policy(policy: str | None, per_hour: float | None) -> tuple[str, float]:
    policy = policy or "none"
    if policy not in POLICIES:
        raise ValueError(f"--late-policy {policy!r}: one of {', '.join(POLICIES)}")
    if policy == "subtract" and not per_hour:
        raise ValueError("--late-policy subtract needs --late-penalty POINTS (points lost per started hour late)")
    return policy, float(per_hour or 0.0)
