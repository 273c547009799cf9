"""What each notebook asks of a learner, counted, and the time that comes to at stated rates.

    python tools/notebook_times.py            # a table: counts, measured run time, estimate per notebook
    python tools/notebook_times.py --json

Counted from solutions/ (the instructor's copy, so the reference answers' length is known): words of prose, lines
of lesson code (setup and demonstration cells), the exercises, the lines of their reference answers, and the
notebook's run time on this machine (each lesson cell run once; the answers are the references). The estimate
applies reading and solving rates that are assumptions, printed with the table, not measurements of a learner:
prose at 200 words a minute (technical reading), lesson code at 10 lines a minute (read, run, compare with the
printed result), and per exercise 8 minutes (read the statement, run its visible test, one round of feedback) plus
2 minutes per line of reference answer (writing and debugging).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.engine import notebooks  # noqa: E402

WORDS_PER_MINUTE = 200
CODE_LINES_PER_MINUTE = 10
MINUTES_PER_EXERCISE = 8
MINUTES_PER_ANSWER_LINE = 2
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)


def _code_lines(source: str) -> int:
    return sum(1 for line in source.splitlines() if line.strip() and not line.strip().startswith("#"))


def counts(path: Path) -> dict:
    nb = notebooks.read(path)
    words = code = exercises = answer = 0
    for cell in nb.cells:
        role = notebooks.role(cell)
        if cell.cell_type == "markdown":
            words += len(re.findall(r"[A-Za-z0-9_']+", cell.source))
        elif role == "answer":
            exercises += 1
            answer += sum(_code_lines(body) for body in SOLUTION.findall(cell.source))
        elif role not in ("test",):
            code += _code_lines(cell.source)
    return {"notebook": path.parent.name, "words": words, "lesson_code_lines": code, "exercises": exercises,
            "answer_lines": answer}


def run_seconds(path: Path) -> float:
    """The notebook run top to bottom in a fresh kernel (references filled in), as the notebook tests run it."""
    import nbclient  # imported here: counting alone needs no kernel

    nb = notebooks.read(path)
    start = time.monotonic()
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
                            ).execute()
    return time.monotonic() - start


def estimate(row: dict) -> float:
    return (row["words"] / WORDS_PER_MINUTE + row["lesson_code_lines"] / CODE_LINES_PER_MINUTE
            + row["exercises"] * MINUTES_PER_EXERCISE + row["answer_lines"] * MINUTES_PER_ANSWER_LINE
            + row.get("run_seconds", 0) / 60)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-run", action="store_true", help="count only; do not run the notebooks")
    args = parser.parse_args(argv)
    rows = []
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        row = counts(path)
        if not args.no_run:
            row["run_seconds"] = round(run_seconds(path), 1)
        row["minutes"] = round(estimate(row))
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"rates: prose {WORDS_PER_MINUTE} words/min, lesson code {CODE_LINES_PER_MINUTE} lines/min, "
          f"{MINUTES_PER_EXERCISE} min per exercise + {MINUTES_PER_ANSWER_LINE} min per answer line")
    print(f"{'notebook':28s} {'words':>6s} {'code':>5s} {'ex.':>4s} {'answer':>6s} {'run s':>6s} {'min':>5s}")
    for r in rows:
        print(f"{r['notebook']:28s} {r['words']:6d} {r['lesson_code_lines']:5d} {r['exercises']:4d} "
              f"{r['answer_lines']:6d} {r.get('run_seconds', 0):6.1f} {r['minutes']:5d}")
    total = sum(r["minutes"] for r in rows)
    print(f"{'in all':28s} {'':6s} {'':5s} {sum(r['exercises'] for r in rows):4d} {'':6s} {'':6s} {total:5d}"
          f"  (about {total / 60:.1f} hours)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
