"""The course on a second torch release: run every instructor notebook, record each cell's outcome, and
compare two releases cell by cell.

    python -m autograder.maintain.compat run --out .grading/torch-2.14.1/cells.json   # on the interpreter that runs it
    python -m autograder.maintain.compat compare PINNED.json OTHER.json --report .grading/torch-2.14.1-report.md

`run` executes solutions/NN_*/*.ipynb top to bottom (two at a time, each in its own kernel of this
interpreter), going on past errors so that every cell gets an outcome: "ok", or the error's name and
message; plus its text outputs, with what changes from run to run (timings, addresses) masked. It reuses a
previous record of a notebook when the notebook, this package and the torch version are unchanged.
`compare` writes a markdown report of what differs, cell by cell: outcomes first (a cell that raises on one
release and not on the other), then outputs. Its exit code is 1 when the second release has a cell that
raises, 0 otherwise. `make test-torch TORCH=2.14.1` runs both on the pinned release and on that one.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.engine import notebooks
from autograder import paths

TIMEOUT = 600          # seconds per cell

# What differs between two runs of the same notebook on the same release, masked before comparing.
_VOLATILE = [
    (re.compile(r"0x[0-9a-f]{6,}"), "0x…"),
    (re.compile(r"\b\d+(\.\d+)?\s?(s|ms|µs|us|ns|seconds?)\b"), "… s"),
    (re.compile(r"\b\d+(\.\d+)?\s?(KiB|MiB|GiB|kB|MB|GB|bytes)\b"), "… B"),
    (re.compile(r"/tmp/[^\s'\"]+"), "/tmp/…"),
    (re.compile(r"\b\d+(\.\d+)?x (faster|slower)\b"), "…x \\2"),
    (re.compile(r"\btorch \d+\.\d+\.\d+\S*"), "torch <version>"),
    (re.compile(r"^\[W\d{4} [\d:.]+ ", re.M), "[W… "),             # C++ warnings' timestamps
    (re.compile(r"\S*/site-packages/"), "…/site-packages/"),
    (re.compile(r"[ \t]+"), " "),                                          # column widths of printed tables
]
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def mask(text: str) -> str:
    text = _ANSI.sub("", text)
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def _cell_text(outputs: list) -> str:
    parts = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(output.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            parts.append(data.get("text/plain", "") if "image/png" not in data else "<figure>")
    return mask("".join(parts)).strip()


def _error_text(error: dict) -> str:
    """ "AssertionError: ... (at: assert torch.isnan(gg).all())": the name, the message, the failing line."""
    text = f"{error.get('ename')}: {mask(str(error.get('evalue')))}".strip()
    arrows = [line for line in (_ANSI.sub("", frame) for frame in error.get("traceback", []))
              for line in line.splitlines() if re.match(r"\s*-+> ", line)]
    if arrows:
        text += f" (at: {re.sub(r'^[-> ]*[0-9]*', '', arrows[-1]).strip()})"
    return text


def _torch_version() -> str:
    import torch

    return torch.__version__


# Modules no notebook cell imports: editing them keeps the recorded runs.
_NOT_IN_NOTEBOOKS = {"maintain", "classroom", "site"}   # wings no notebook imports: editing them keeps the cache


def _key(source: Path) -> str:
    digest = hashlib.sha256(source.read_bytes())
    for path in sorted((paths.ROOT / "autograder").rglob("*.py")):
        if not _NOT_IN_NOTEBOOKS & set(path.relative_to(paths.ROOT / "autograder").parts):
            digest.update(path.read_bytes())
    digest.update(_torch_version().encode())
    return digest.hexdigest()


def run_one(source: Path) -> dict:
    """Every code cell of one notebook: {"id", "index", "status", "error", "output"}."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(source, as_version=4)
    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(source.parent)}})
    start = time.monotonic()
    client.execute()
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        error = _error_text(errors[0]) if errors else None
        cells.append({"id": cell.get("id", str(index)), "index": index, "status": "error" if errors else "ok",
                      "error": error, "output": _cell_text(cell.get("outputs", []))})
    return {"seconds": round(time.monotonic() - start, 1), "cells": cells}


def _kernel_python_matches() -> None:
    """nbclient's "python3" kernel must be this interpreter, or the run would test another torch."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    argv0 = spec.argv[0]
    if argv0 not in ("python", "python3", sys.executable) and Path(argv0).resolve() != Path(sys.executable).resolve():
        raise SystemExit(f"the python3 kernel runs {argv0}, not {sys.executable}: install ipykernel here "
                         f"({sys.executable} -m ipykernel install --sys-prefix)")


def run(out: Path, workers: int = 2, only: list[str] | None = None) -> dict:
    _kernel_python_matches()
    previous = json.loads(out.read_text()) if out.exists() else {}
    record = {"torch": _torch_version(), "python": sys.executable, "notebooks": {}}
    sources = [s for s in notebooks.sources() if not only or s.name in only or s.path.parent.name in only]

    def one(source):
        key = _key(source.path)
        old = previous.get("notebooks", {}).get(source.name)
        if old and old.get("key") == key:
            return source.name, old, "unchanged"
        result = run_one(source.path)
        result["key"] = key
        return source.name, result, f"{result['seconds']:.0f} s"

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for name, result, how in pool.map(one, sources):
            record["notebooks"][name] = result
            raised = [c["id"] for c in result["cells"] if c["status"] == "error"]
            print(f"  {name:32} {how:>10}  {'raises in ' + ', '.join(raised) if raised else 'clean'}", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    return record


def compare(pinned: dict, other: dict) -> tuple[str, list[str]]:
    """(markdown report, ids "notebook/cell" that raise on the other release)."""
    a, b = pinned["torch"], other["torch"]
    lines = [f"# The course on torch {b}, against the pinned torch {a}", "",
             "Every instructor notebook run top to bottom on each release (`python -m autograder.maintain.compat`); "
             "each code cell compared by outcome (runs, or raises) and by its text output (timings, sizes "
             "and addresses masked).", ""]
    status_rows, output_rows, raising, summary = [], [], [], []
    for name in sorted(set(pinned["notebooks"]) | set(other["notebooks"])):
        left = {c["id"]: c for c in pinned["notebooks"].get(name, {}).get("cells", [])}
        right = {c["id"]: c for c in other["notebooks"].get(name, {}).get("cells", [])}
        changed = 0
        for cell_id in list(dict.fromkeys([*left, *right])):
            x, y = left.get(cell_id), right.get(cell_id)
            if y and y["status"] == "error":
                raising.append(f"{name}/{cell_id}")
            if not x or not y:
                status_rows.append(f"| {name} | `{cell_id}` | {'absent' if not x else x['status']} | "
                                   f"{'absent' if not y else y['status']} |")
                changed += 1
                continue
            if (x["status"], x["error"]) != (y["status"], y["error"]):
                status_rows.append(f"| {name} | `{cell_id}` | {_describe(x)} | {_describe(y)} |")
                changed += 1
            elif mask(x["output"]) != mask(y["output"]):
                old, new = mask(x["output"]).splitlines(), mask(y["output"]).splitlines()
                diff = "\n".join(difflib.unified_diff(old, new, a, b, lineterm="", n=0))
                output_rows.append(f"### {name} · `{cell_id}`\n\n```diff\n{diff}\n```\n")
                changed += 1
        seconds = (pinned["notebooks"].get(name, {}).get("seconds"), other["notebooks"].get(name, {}).get("seconds"))
        summary.append(f"| {name} | {changed} | {seconds[0]} | {seconds[1]} |")
    lines += ["## Per notebook", "", f"| notebook | cells that differ | seconds on {a} | seconds on {b} |",
              "|---|---|---|---|", *summary, ""]
    lines += ["## Cells whose outcome differs", ""]
    lines += ([f"| notebook | cell | torch {a} | torch {b} |", "|---|---|---|---|", *status_rows]
              if status_rows else ["None: every cell runs (or raises) alike on both releases."])
    lines += ["", "## Cells whose output differs (same outcome)", ""]
    lines += output_rows or ["None."]
    return "\n".join(lines) + "\n", raising


def _describe(cell: dict) -> str:
    if cell["status"] == "ok":
        return "runs"
    return "raises `" + cell["error"].splitlines()[0][:160].replace("|", "\\|").replace("`", "'") + "`"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.maintain.compat", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run every instructor notebook on this interpreter's torch")
    run_parser.add_argument("--out", type=Path, required=True)
    run_parser.add_argument("--workers", type=int, default=2)
    run_parser.add_argument("--only", nargs="*", help="notebook names or folders")
    compare_parser = commands.add_parser("compare", help="compare two runs cell by cell")
    compare_parser.add_argument("pinned", type=Path)
    compare_parser.add_argument("other", type=Path)
    compare_parser.add_argument("--report", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "run":
        start = time.monotonic()
        record = run(args.out, workers=args.workers, only=args.only)
        print(f"torch {record['torch']}: {len(record['notebooks'])} notebooks in {time.monotonic() - start:.0f} s")
        return 0
    pinned, other = (json.loads(p.read_text()) for p in (args.pinned, args.other))
    report, raising = compare(pinned, other)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(report)
    outcome = report.split("## Cells whose outcome differs")[1].split("## Cells whose output differs")[0]
    print(f"report: {args.report}")
    print(outcome.strip())
    if raising:
        print(f"on torch {other['torch']}, cells raise: {', '.join(raising)}")
        return 1
    print(f"on torch {other['torch']}, every instructor notebook runs clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
