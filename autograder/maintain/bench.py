"""make bench: grade one synthetic class with plain `nbgrader autograde` (serial, and two processes at once:
the fair anchor on 2 cores) and with ours.

    python -m autograder.maintain.bench [--students 24] [--workers 2] [--assignments 01_square,03_shapes]
                                        [--skip-nbgrader] [--second-class 12] [--record docs/bench/last-run.json]

Prints wall times (ours is timed before and after nbgrader; the ratios use the mean), both ratios, seconds
per notebook, where our time goes in one test (the answers, the forks, the round trips to the learner's
process and their count, the checks' own compute, the rest), peak memory per worker, and whether the two
agree on every score. It also grades the same submissions in one plain process, with no isolation at all
(the checks' own cost: the floor ours is measured against), and prints ours as a multiple of it, for the
class and for each notebook. `--second-class N` grades a class of N students too, ours and the floor, back to back
with the first, and prints both sides' cost of one more notebook and their fixed costs (one-off costs, a root's
imports and warm-ups, cancel in the first: the goal is stated on it). `--record` writes every figure as JSON, with
the torch version, the machine's cores, the date and the arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.engine import notebooks
from autograder import paths
from autograder.maintain import samples
from autograder.maintain.bench_figures import (floor_figures, marginal_figures, test_breakdown, round_trips_per_test,
                                               notebook_rows, test_rows, print_notebook_rows, print_test_rows,
                                               write_record)


def synthetic_class(students: int, assignments: list[str]) -> dict:
    """student -> assignment -> notebook: a deterministic mix of right answers and zoo mistakes."""
    by_exercise: dict[str, list] = {}
    for entry in samples.zoo():
        by_exercise.setdefault(entry.exercise, []).append(entry)
    out: dict = {}
    for i in range(students):
        student = f"student{i:02d}"
        out[student] = {}
        for assignment in assignments:
            answers = {}
            for j, exercise in enumerate(samples.exercises_of(assignment)):
                entries = by_exercise.get(exercise, [])
                pick = (i * 7 + j * 3) % (len(entries) + 2)  # two in every len+2 are right answers
                if pick < len(entries):
                    answers[exercise] = entries[pick].source
            out[student][assignment] = samples.student_notebook(assignment, answers)
    return out


def write_submissions(klass: dict, submitted: Path) -> int:
    count = 0
    for student, by_assignment in klass.items():
        for assignment, (source, nb) in by_assignment.items():
            target = submitted / student / assignment / f"{source.name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
            count += 1
    return count


def _nbgrader_env() -> tuple[Path, dict]:
    bin_dir = Path(sys.executable).parent
    return bin_dir, dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def prepare_plain_nbgrader(root: Path, assignments: list[str]) -> None:
    """nbgrader as it comes: its default config, the assignments generated (not timed)."""
    bin_dir, env = _nbgrader_env()
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.CourseDirectory.root = %r\n"
        "c.CourseDirectory.source_directory = 'source'\n"
        "c.CourseDirectory.db_url = 'sqlite:///%s/gradebook.db'\n" % (str(root), str(root)))
    for assignment in assignments:
        subprocess.run([str(bin_dir / "nbgrader"), "generate_assignment", assignment, "--force"], cwd=root,
                       env=env, check=True, capture_output=True)


def _plain_scores(root: Path, assignments: list[str]) -> dict:
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{root}/gradebook.db") as gb:
        for assignment in assignments:
            for sub in gb.assignment_submissions(assignment):
                scores[(sub.student_id, assignment)] = float(sub.score)
    return scores


def run_plain_nbgrader(roots: list[Path], assignments: list[str]) -> tuple[float, dict]:
    """Serial `nbgrader autograde` per assignment, in as many processes at once as there are `roots`
    (prepared copies of one course, each with its own gradebook: SQLite takes one writer). Assignments
    are dealt out in turn, so two processes each grade half of them."""
    bin_dir, env = _nbgrader_env()
    shares = [assignments[k::len(roots)] for k in range(len(roots))]
    start = time.monotonic()
    # exit status 1 means a student needs manual grading: not our concern
    running = [subprocess.Popen(["bash", "-c", " ; ".join(f"'{bin_dir / 'nbgrader'}' autograde {a} --force"
                                                          for a in share) or "true"],
                                cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for root, share in zip(roots, shares)]
    for process in running:
        process.wait()
    seconds = time.monotonic() - start
    scores: dict = {}
    for root, share in zip(roots, shares):
        scores.update(_plain_scores(root, share))
    return seconds, scores


def run_ours(home: Path, workers: int) -> tuple[float, dict, list[dict]]:
    env = dict(os.environ, AUTOGRADER_HOME=str(home))
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "autograder", "autograde", "--workers", str(workers), "--force",
                    "--quiet"], env=env, check=True, capture_output=True)
    seconds = time.monotonic() - start
    reports = [json.loads(p.read_text()) for p in sorted((home / "autograded").glob("*/*/*.grade.json"))]
    scores = {(r["student"], r["assignment"]): float(r["score"]) for r in reports}
    return seconds, scores, reports


# ------------------------------------------------------------------------------- in-process (the floor)

def grade_in_process(files: list[Path], seed: int = 0) -> list[dict]:
    """Each submission graded by the pipeline in this process (runners.InProcessRunner: no fork, no proxies, no
    limits, the sandbox's rules): what the checks themselves cost. Assumes torch and the checks are imported
    (see `in_process_child`). The runner runs the setup and answer cells again before each test (the fresh
    state the sandbox's fork gives); the floor counts them once, as the sandbox runs them. One dict per
    notebook: student, assignment, score, max_score, seconds (reading and matching, the answers once, every
    check), answers_seconds, check_seconds and compile_seconds (one per test), statuses."""
    import contextlib
    import gc
    import io

    from autograder.engine import grading
    from autograder.engine.runners import InProcessRunner

    candidates = notebooks.sources()
    runner = InProcessRunner()
    out = []
    sink = io.StringIO()
    for path in files:
        path = Path(path)
        # What lives here already out of the collector's reach, as a grading root freezes its imports before its
        # forks: a check that unfroze it (behaviour.alive_after) would otherwise make every later full collection
        # walk a million objects (O(1): the objects stay where they are).
        gc.freeze()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            start = time.perf_counter()
            submission = notebooks.submission_from_path(path, candidates)
            read_seconds = time.perf_counter() - start
            report, _ = grading.grade_submission(submission, runner, seed, autograded=False)
        sink.seek(0)
        sink.truncate()
        answers = [c.phases.get("answers", 0.0) for c in report.cells]
        answers_seconds = sum(answers) / len(answers) if answers else 0.0
        check_seconds = [c.check_seconds for c in report.cells]
        compile_seconds = [c.phases.get("compile", 0.0) for c in report.cells]
        out.append({"student": path.parent.parent.name, "assignment": report.assignment, "score": report.score,
                    "max_score": report.max_score, "seconds": read_seconds + answers_seconds + sum(check_seconds),
                    "answers_seconds": answers_seconds, "check_seconds": check_seconds,
                    "compile_seconds": compile_seconds,
                    "statuses": [c.status for c in report.cells], "grade_ids": [c.grade_id for c in report.cells]})
    return out


def in_process_child(request: str) -> None:
    """In a fresh process: the warm-up the sandbox's root does (torch, the checks, a first gradcheck),
    timed apart, then `grade_in_process`. `request` is a JSON file {files, seed, out}; the answer goes to
    `out` as JSON {import_seconds, notebooks}."""
    job = json.loads(Path(request).read_text())
    start = time.perf_counter()
    from autograder.engine.sandbox import root

    root.prepare()  # also one torch thread, as in every grading process
    import_seconds = time.perf_counter() - start
    results = grade_in_process([Path(f) for f in job["files"]], job["seed"])
    Path(job["out"]).write_text(json.dumps({"import_seconds": import_seconds, "notebooks": results}))


def run_in_process(files: list[Path], workdir: Path, seed: int = 0) -> dict:
    """`in_process_child` in a subprocess (the bench's own state stays out of it): {import_seconds,
    seconds (all notebooks, imports excluded), notebooks, scores by (student, assignment)}."""
    request, answer = workdir / "in-process-request.json", workdir / "in-process.json"
    request.write_text(json.dumps({"files": [str(f) for f in files], "seed": seed, "out": str(answer)}))
    subprocess.run([sys.executable, "-c", "import sys; from autograder.maintain import bench; bench.in_process_child(sys.argv[1])",
                    str(request)], check=True, capture_output=True, timeout=3600)
    data = json.loads(answer.read_text())
    data["seconds"] = sum(nb["seconds"] for nb in data["notebooks"])
    data["scores"] = {(nb["student"], nb["assignment"]): nb["score"] for nb in data["notebooks"]}
    return data


def second_class(args, assignments: list[str], workdir: Path, small: dict) -> dict:
    """A class of `args.second_class` students graded by ours and in process: with the first class's figures
    (`small`), each side's cost of one more notebook and fixed cost (bench_figures.marginal_figures), printed."""
    klass = synthetic_class(args.second_class, assignments)
    n = write_submissions(klass, workdir / "ours" / "submitted")
    ours_s, _, _ = run_ours(workdir / "ours", args.workers)
    in_process = run_in_process(sorted((workdir / "ours" / "submitted").glob("*/*/*.ipynb")), workdir)
    big = {"notebooks": n, "ours_seconds": ours_s,
           "floor_seconds": in_process["import_seconds"] + in_process["seconds"]}
    out = marginal_figures(small, big)
    print(f"\ntwo class sizes ({small['notebooks']} and {n} notebooks), one more notebook and the fixed cost:")
    for side, label in (("ours", f"ours (--workers {args.workers}, wall)"), ("floor", "in-process (1 process)")):
        figures = out[side]
        print(f"  {label:<34} {figures['marginal_per_notebook']:6.3f} s a notebook, "
              f"fixed {figures['fixed_seconds']:6.1f} s   "
              f"(runs: {figures['seconds'][0]:.1f} s and {figures['seconds'][1]:.1f} s)")
    print(f"  ours / in-process, one more notebook: {out['marginal_ratio']:.2f}x")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.maintain.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=24)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--assignments", help="comma-separated (default: every course notebook)")
    parser.add_argument("--skip-nbgrader", action="store_true", help="time only our grader")
    parser.add_argument("--second-class", type=int, metavar="N",
                        help="also grade a class of N students: the marginal and fixed costs of both sides")
    parser.add_argument("--record", metavar="PATH", help="write the figures as JSON to PATH")
    args = parser.parse_args(argv)
    if args.second_class is not None and args.second_class == args.students:
        parser.error("--second-class must differ from --students (two class sizes give the slope)")

    all_assignments = [s.assignment for s in notebooks.sources()]
    assignments = args.assignments.split(",") if args.assignments else all_assignments
    unknown = set(assignments) - set(all_assignments)
    if unknown:
        parser.error(f"unknown assignments: {', '.join(sorted(unknown))}")
    klass = synthetic_class(args.students, assignments)
    figures: dict = {"assignments": assignments, "nbgrader": None}
    status = _bench(args, assignments, klass, figures)
    if args.record:
        write_record(Path(args.record), args, figures)
        print(f"\nrecord written to {args.record}")
    return status


def _bench(args, assignments: list[str], klass: dict, figures: dict) -> int:
    """The runs and their printout; every figure also goes into `figures` (the record)."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        tmp = Path(tmp)
        plain_root, our_home = tmp / "plain", tmp / "ours"
        shutil.copytree(paths.SOLUTIONS, plain_root / "source",
                        ignore=lambda d, names: [n for n in names if n not in assignments and Path(d) == paths.SOLUTIONS])
        n = write_submissions(klass, plain_root / "submitted")
        write_submissions(klass, our_home / "submitted")
        figures["submissions"] = n
        print(f"synthetic class: {args.students} students x {len(assignments)} notebooks = {n} submissions")

        ours_s, ours_scores, reports = run_ours(our_home, args.workers)
        cells = [c for r in reports for c in r["cells"]]
        checks = sum(c.get("check_seconds", 0.0) for c in cells)
        test_seconds = sum(c["seconds"] for c in cells)
        peak = max((c.get("memory_mb", 0.0) for c in cells), default=0.0)
        print(f"\nours (--workers {args.workers}): {ours_s:8.1f} s wall   {ours_s / n:6.3f} s per notebook")
        print(f"  time in the checks themselves: {checks:7.1f} s  ({checks / n:.3f} s per notebook)")
        print(f"  per-test overhead (fork, setup, answers, channel): {test_seconds - checks:7.1f} s "
              f"({(test_seconds - checks) / n:.3f} s per notebook)")
        overhead = max(ours_s * args.workers - checks, 0.0)
        print(f"  all overhead incl. start-up and gradebook (worker-seconds minus checks): {overhead:7.1f} s "
              f"({overhead / n:.3f} s per notebook; checks are {100 * checks / (ours_s * args.workers):.0f}% "
              "of worker time)")
        print(f"  peak memory of a grading process: {peak:.0f} MB")
        trips = round_trips_per_test(cells)
        print(f"  round trips to the learner's process: {trips:.1f} per test on average")
        breakdown = test_breakdown(cells)
        print(f"  one test, on average over {len(cells)} (milliseconds):")
        for label, share in breakdown.items():
            print(f"    {label:<64} {share * 1000:7.1f}")
        figures["ours"] = {"wall_seconds": ours_s, "per_notebook": ours_s / n, "checks_seconds": checks,
                           "per_test_overhead_seconds": test_seconds - checks, "overhead_seconds": overhead,
                           "peak_mb": peak, "tests": len(cells), "round_trips_per_test": trips,
                           "one_test": breakdown}

        files = sorted((our_home / "submitted").glob("*/*/*.ipynb"))
        in_process = run_in_process(files, tmp)
        floor = floor_figures(in_process, ours_s, args.workers, cells)
        print(f"\nin-process, no isolation (1 process, the checks' own cost): {floor['seconds']:8.3f} s   "
              f"{floor['per_notebook']:6.3f} s per notebook   (imports and warm-up, not counted: "
              f"{in_process['import_seconds']:.1f} s)")
        print(f"  ours / in-process: {floor['wall_ratio']:.1f}x wall, {floor['worker_ratio']:.1f}x in worker-seconds "
              f"(--workers {args.workers})")
        print(f"  one test (milliseconds): in-process {floor['per_test'] * 1000:.1f} (checks alone "
              f"{floor['checks_per_test'] * 1000:.1f}); ours {floor['ours_per_test'] * 1000:.1f} (checks "
              f"{floor['ours_checks_per_test'] * 1000:.1f}, overhead {floor['ours_overhead_per_test'] * 1000:.1f}, "
              f"{floor['ours_per_test'] / floor['per_test'] if floor['per_test'] else float('inf'):.1f}x "
              "in-process)")
        figures["floor"] = dict(floor, import_seconds=in_process["import_seconds"])
        if args.second_class:
            small = {"notebooks": n, "ours_seconds": ours_s,
                     "floor_seconds": in_process["import_seconds"] + in_process["seconds"]}
            figures["marginal"] = second_class(args, assignments, tmp / "second", small)
        figures["notebooks"] = notebook_rows(reports, in_process)
        figures["tests"] = test_rows(reports, in_process)
        print_notebook_rows(figures["notebooks"])
        print_test_rows(figures["tests"])

        floor_differ = {k: (in_process["scores"].get(k), v) for k, v in ours_scores.items()
                        if in_process["scores"].get(k) != v}
        figures["scores"] = {"notebooks": len(ours_scores),
                             "class_mean": sum(ours_scores.values()) / len(ours_scores) if ours_scores else 0.0,
                             "floor_agrees": not floor_differ,
                             "floor_differ": [[*key, *pair] for key, pair in sorted(floor_differ.items())],
                             "nbgrader_agrees": None}
        if floor_differ:
            print(f"\n  in-process scores differ on {len(floor_differ)} of {len(ours_scores)} notebooks "
                  "(in-process, ours; no sandbox there, so limits and isolation may decide differently):")
            for key, pair in sorted(floor_differ.items())[:20]:
                print(f"    {key}: {pair}")
        else:
            print(f"\n  in-process scores agree with ours on all {len(ours_scores)} notebooks")

        if args.skip_nbgrader:
            return 0
        prepare_plain_nbgrader(plain_root, assignments)
        twin = tmp / "plain-second-process"
        shutil.copytree(plain_root, twin)
        (twin / "nbgrader_config.py").write_text((plain_root / "nbgrader_config.py").read_text()
                                                  .replace(str(plain_root), str(twin)))
        plain_s, plain_scores = run_plain_nbgrader([plain_root], assignments)
        print(f"\nplain nbgrader (serial): {plain_s:8.1f} s wall   {plain_s / n:6.3f} s per notebook")
        shutil.rmtree(plain_root / "autograded", ignore_errors=True)
        pair_s, pair_scores = run_plain_nbgrader([plain_root, twin], assignments)
        print(f"plain nbgrader (2 processes, assignments dealt out): {pair_s:8.1f} s wall   "
              f"{pair_s / n:6.3f} s per notebook")
        # A shared machine's speed drifts over minutes: time ours again after nbgrader (on a fresh home, so
        # the gradebook is built again) and compare nbgrader with the mean of the two runs around it.
        write_submissions(klass, tmp / "ours-again" / "submitted")
        again_s, _, _ = run_ours(tmp / "ours-again", args.workers)
        mean_s = (ours_s + again_s) / 2
        print(f"ours again, after nbgrader: {again_s:8.1f} s wall (mean of both runs {mean_s:.1f} s)")
        print(f"\nspeed-up: {plain_s / mean_s:.1f}x over serial nbgrader, {pair_s / mean_s:.1f}x over nbgrader on "
              "2 processes")
        differ = {k: (plain_scores.get(k), v) for k, v in ours_scores.items()
                  if plain_scores.get(k) != v or pair_scores.get(k) != v}
        figures["nbgrader"] = {"serial_seconds": plain_s, "two_processes_seconds": pair_s,
                               "ours_again_seconds": again_s, "ours_mean_seconds": mean_s,
                               "speed_up_serial": plain_s / mean_s, "speed_up_two_processes": pair_s / mean_s}
        figures["scores"].update(nbgrader_agrees=not differ,
                                 nbgrader_differ=[[*key, *pair] for key, pair in sorted(differ.items())])
        if differ:
            print(f"scores differ on {len(differ)} of {len(ours_scores)} notebooks (nbgrader, ours):")
            for key, pair in sorted(differ.items())[:20]:
                print(f"  {key}: {pair}")
            return 1
        print(f"scores agree on all {len(ours_scores)} notebooks "
              f"(class mean {sum(ours_scores.values()) / len(ours_scores):.2f} points per notebook)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
