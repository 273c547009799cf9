"""How long a learner's self-check takes: for each notebook, a fresh "kernel" (a Python process that imports the
self-check, as a notebook's kernel does) grades a correct copy of it `--repeats + 1` times: the first self-check
and the repeated ones (graded by the kernel's grading root). "cold": the first self-check starts the root (as with
AUTOGRADER_EARLY_ROOT=0); "ahead": the kernel's first import of the package started it `--ahead` seconds before
(a learner reading and writing between a lesson's first figure and the self-check; selfcheck.start_root_ahead). Each figure is the best of
`--rounds` kernels (the machine may be shared). A measurement, not a test: nothing here asserts a time.

    python tools/selfcheck_times.py                 # every notebook, a table
    python tools/selfcheck_times.py 01_square 11_compile_and_export --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# One kernel: grade the notebook given, the first time and `repeats` more; the seconds each took and the scores.
KERNEL = """
import json, sys, time
from autograder import selfcheck
path, repeats, ahead = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
if ahead >= 0:  # as in a Jupyter kernel whose first cell imported the package `ahead` seconds ago
    selfcheck._in_a_jupyter_kernel = lambda: True
    selfcheck.start_root_ahead(path)
    time.sleep(ahead)
seconds, scores = [], []
for _ in range(repeats + 1):
    start = time.perf_counter()
    report = selfcheck.grade_this_notebook(path, show=False)
    seconds.append(time.perf_counter() - start)
    scores.append((report["score"], report["max_score"]))
print(json.dumps({"seconds": seconds, "scores": scores}))
"""


def kernel_run(path: Path, repeats: int, ahead: float = -1) -> dict:
    run = subprocess.run([sys.executable, "-c", KERNEL, str(path), str(repeats), str(ahead)], capture_output=True,
                         text=True, cwd=path.parent, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def measure(assignment: str, folder: Path, rounds: int, repeats: int, ahead: float) -> dict:
    import nbformat

    from autograder.maintain.samples import student_notebook

    path = folder / assignment / f"{assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(student_notebook(assignment)[1], path)
    runs = [kernel_run(path, repeats) for _ in range(rounds)]
    started_ahead = [kernel_run(path, 0, ahead) for _ in range(rounds)]
    return {"notebook": assignment, "first": min(r["seconds"][0] for r in runs),
            "first_ahead": min(r["seconds"][0] for r in started_ahead),
            "repeated": min(min(r["seconds"][1:]) for r in runs),
            "scores": sorted({tuple(s) for r in runs for s in r["scores"]})}


def main(argv=None) -> None:
    from autograder.engine import notebooks

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", help="course notebooks by name (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="kernels per notebook; the best figure is kept")
    parser.add_argument("--repeats", type=int, default=2, help="self-checks after the first, per kernel")
    parser.add_argument("--ahead", type=float, default=30.0,
                        help="seconds between the kernel's first import of the package and its first self-check")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    names = args.notebooks or [s.name for s in notebooks.sources()]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            rows.append(measure(name, Path(folder), args.rounds, args.repeats, args.ahead))
            if not args.json:
                row = rows[-1]
                print(f"{name:28} first: cold {row['first']:6.2f} s, root started ahead {row['first_ahead']:6.2f} s   "
                      f"repeated {row['repeated']:6.2f} s   "
                      f"scores {row['scores']}", flush=True)
    load = os.getloadavg()
    if args.json:
        print(json.dumps({"rows": rows, "load": load}, indent=1))
    else:
        print(f"(load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")


if __name__ == "__main__":
    main()
