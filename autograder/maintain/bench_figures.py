"""The bench's figures: ours against the floor, where one test's time goes, a row per notebook and per
test, printed and written down as JSON (`--record`)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
from pathlib import Path


def floor_figures(in_process: dict, ours_s: float, workers: int, cells: list[dict]) -> dict:
    """Ours against the in-process floor: wall and worker-time ratios, and one test's cost in each."""
    notebooks_n = len(in_process["notebooks"])
    tests_n = sum(len(nb["check_seconds"]) for nb in in_process["notebooks"])
    floor = in_process["seconds"]
    ours_test = sum(c.get("seconds", 0.0) for c in cells) / len(cells) if cells else 0.0
    ours_check = sum(c.get("check_seconds", 0.0) for c in cells) / len(cells) if cells else 0.0
    return {
        "seconds": floor,
        "per_notebook": floor / notebooks_n if notebooks_n else 0.0,
        "per_test": floor / tests_n if tests_n else 0.0,
        "checks_per_test": (sum(sum(nb["check_seconds"]) for nb in in_process["notebooks"]) / tests_n
                            if tests_n else 0.0),
        "wall_ratio": ours_s / floor if floor else float("inf"),
        "worker_ratio": ours_s * workers / floor if floor else float("inf"),
        "ours_per_test": ours_test,
        "ours_checks_per_test": ours_check,
        "ours_overhead_per_test": max(ours_test - ours_check, 0.0),
    }


# Steps the judge times for each test (Outcome.details["phases"]), grouped for reading. The round trips are
# part of the test cell's time: the checks' own compute is the test cell less its round trips.
PHASE_GROUPS = {
    "setup and answer cells (once per notebook, shared by its tests)": ("answers",),
    "copy of the learner's state (a fork)": ("fork",),
    "round trips to the learner's process": ("requests",),
    "  of which compiling, tracing, exporting (torch.compile, export, opcheck)": ("compile",),
}
CHECKS_OWN = "the checks' own compute (the test cell less its round trips)"
REST = "exit, result channel, clean-up"


def _own_compute(phases: dict) -> float:
    return max(phases.get("check", 0.0) - phases.get("requests", 0.0), 0.0)


def test_breakdown(cells: list[dict]) -> dict[str, float]:
    """Mean seconds per test in each group of steps. A test's own time (its `seconds`, from the fork to the
    verdict read) is its forks, its test cell (round trips and the checks' own compute) and the rest: exit,
    channel, clean-up; its share of the answers, run once before the notebook's tests, comes on top."""
    if not cells:
        return {}
    totals = {label: 0.0 for label in PHASE_GROUPS}
    own = rest = whole = 0.0
    for cell in cells:
        phases = cell.get("phases") or {}
        for label, names in PHASE_GROUPS.items():
            totals[label] += sum(phases.get(name, 0.0) for name in names)
        own += _own_compute(phases)
        seconds = cell.get("seconds", 0.0)
        rest += max(seconds - phases.get("fork", 0.0) - max(phases.get("check", 0.0), phases.get("requests", 0.0)),
                    0.0)
        whole += seconds + phases.get("answers", 0.0)
    out = {label: total / len(cells) for label, total in totals.items()}
    out[CHECKS_OWN] = own / len(cells)
    out[REST] = rest / len(cells)
    out["whole test, with its share of the answers"] = whole / len(cells)
    return out


def round_trips_per_test(cells: list[dict]) -> float:
    return sum(c.get("round_trips", 0) for c in cells) / len(cells) if cells else 0.0


def marginal_figures(small: dict, big: dict) -> dict:
    """The cost of one more notebook and the fixed cost, from two class sizes graded the same way: for ours
    (wall seconds, its start-up and gradebook included) and for the floor (in-process: imports plus the checks).
    `small` and `big`: {notebooks, ours_seconds, floor_seconds}. A slope of two points: the machine's drift between
    the runs is in it, so the bench runs the two sizes back to back."""
    extra = big["notebooks"] - small["notebooks"]
    out = {"notebooks": [small["notebooks"], big["notebooks"]]}
    for side in ("ours", "floor"):
        marginal = (big[f"{side}_seconds"] - small[f"{side}_seconds"]) / extra if extra else float("nan")
        out[side] = {"seconds": [small[f"{side}_seconds"], big[f"{side}_seconds"]], "marginal_per_notebook": marginal,
                     "fixed_seconds": small[f"{side}_seconds"] - marginal * small["notebooks"]}
    floor_marginal = out["floor"]["marginal_per_notebook"]
    out["marginal_ratio"] = out["ours"]["marginal_per_notebook"] / floor_marginal if floor_marginal else float("inf")
    return out


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def _test_figures(cells: list[dict]) -> dict:
    """One test's mean cost (seconds, with its share of the answers) and in each step, and its round trips."""
    phases = [c.get("phases") or {} for c in cells]
    return {"seconds": _mean(c.get("seconds", 0.0) + (c.get("phases") or {}).get("answers", 0.0) for c in cells),
            "answers": _mean(p.get("answers", 0.0) for p in phases),
            "forks": _mean(p.get("fork", 0.0) for p in phases),
            "round_trips_seconds": _mean(p.get("requests", 0.0) for p in phases),
            "round_trips": _mean(c.get("round_trips", 0) for c in cells),
            "checks_own": _mean(_own_compute(p) for p in phases),
            "compile": _mean(p.get("compile", 0.0) for p in phases)}


def notebook_rows(reports: list[dict], in_process: dict) -> list[dict]:
    """Per notebook (mean over its submissions): ours and the floor in seconds per notebook, their ratio, and
    one test's cost in each step of ours, with its round trips and the peak memory of a grading process."""
    rows = []
    for assignment in sorted({r["assignment"] for r in reports}):
        ours = [r for r in reports if r["assignment"] == assignment]
        floor = [nb for nb in in_process.get("notebooks", []) if nb["assignment"] == assignment]
        cells = [c for r in ours for c in r["cells"]]
        ours_s, floor_s = _mean(r.get("seconds", 0.0) for r in ours), _mean(nb["seconds"] for nb in floor)
        floor_tests = [s for nb in floor for s in nb.get("compile_seconds", [])]
        rows.append({"notebook": assignment, "submissions": len(ours),
                     "tests": len(cells) // len(ours) if ours else 0, "ours_seconds": ours_s,
                     "floor_seconds": floor_s, "ratio": ours_s / floor_s if floor_s else float("inf"),
                     "per_test": _test_figures(cells), "floor_compile_per_test": _mean(floor_tests),
                     "peak_mb": max((c.get("memory_mb", 0.0) for c in cells), default=0.0)})
    return rows


def test_rows(reports: list[dict], in_process: dict) -> list[dict]:
    """Per test cell (mean over the submissions): ours and the floor in seconds (each with its notebook's
    answers shared out over its tests, as the judge's phases do), their ratio, ours step by step."""
    floor: dict = {}
    for nb in in_process.get("notebooks", []):
        share = nb["answers_seconds"] / max(len(nb["check_seconds"]), 1)
        for grade_id, seconds in zip(nb.get("grade_ids", []), nb["check_seconds"]):
            floor.setdefault((nb["assignment"], grade_id), []).append(share + seconds)
    ours: dict = {}
    for r in reports:
        for c in r["cells"]:
            ours.setdefault((r["assignment"], c["grade_id"]), []).append(c)
    rows = []
    for (assignment, grade_id), cells in sorted(ours.items()):
        figures = _test_figures(cells)
        floor_s = _mean(floor.get((assignment, grade_id), []))
        rows.append({"notebook": assignment, "test": grade_id, "ours_seconds": figures.pop("seconds"),
                     "floor_seconds": floor_s, **figures})
        rows[-1]["ratio"] = rows[-1]["ours_seconds"] / floor_s if floor_s else float("inf")
    return rows


def print_notebook_rows(rows: list[dict]) -> None:
    print("\nper notebook (mean over its submissions; one test's milliseconds: answers' share, forks, round trips "
          "and their count, the checks' own compute, and compiling within the round trips):")
    print(f"  {'notebook':<24} {'tests':>5} {'ours s':>8} {'floor s':>8} {'ratio':>7}   {'answers':>7} {'forks':>7} "
          f"{'trips ms':>8} {'trips':>6} {'checks':>7} {'compile':>8} {'peak MB':>8}")
    for r in rows:
        t = r["per_test"]
        print(f"  {r['notebook']:<24} {r['tests']:>5} {r['ours_seconds']:8.3f} {r['floor_seconds']:8.3f} "
              f"{r['ratio']:6.1f}x   {t['answers'] * 1000:7.1f} {t['forks'] * 1000:7.1f} "
              f"{t['round_trips_seconds'] * 1000:8.1f} {t['round_trips']:6.1f} {t['checks_own'] * 1000:7.1f} "
              f"{t.get('compile', 0.0) * 1000:8.1f} {r['peak_mb']:8.0f}")


def print_test_rows(rows: list[dict], shown: int = 10) -> None:
    print(f"\nthe {min(shown, len(rows))} slowest tests of ours (of {len(rows)}; every one in the record), "
          "milliseconds:")
    print(f"  {'test':<44} {'ours':>7} {'floor':>7} {'ratio':>7}   {'forks':>6} {'trips ms':>8} {'trips':>6} "
          f"{'checks':>7}")
    for r in sorted(rows, key=lambda r: -r["ours_seconds"])[:shown]:
        name = f"{r['notebook'].split('_')[0]} {r['test']}"
        print(f"  {name:<44} {r['ours_seconds'] * 1000:7.1f} {r['floor_seconds'] * 1000:7.1f} {r['ratio']:6.1f}x   "
              f"{r['forks'] * 1000:6.1f} {r['round_trips_seconds'] * 1000:8.1f} {r['round_trips']:6.1f} "
              f"{r['checks_own'] * 1000:7.1f}")


def _torch_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("torch")  # without importing it: the bench's process stays light
    except metadata.PackageNotFoundError:
        return ""


def write_record(path: Path, args: argparse.Namespace, figures: dict) -> dict:
    """The bench's figures as JSON at `path`, with what they were measured on."""
    record = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "torch": _torch_version(), "python": platform.python_version(), "machine": platform.machine(),
              "cores": os.cpu_count(), "arguments": {k: v for k, v in vars(args).items()}, **figures}
    record = _finite(record)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def _finite(value):
    """An infinite ratio (a floor of zero) as null: JSON has no infinity."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
