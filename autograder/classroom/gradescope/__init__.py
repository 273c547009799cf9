"""Grading on Gradescope: the autograder zip (`python -m autograder gradescope`) and what its
`run_autograder` runs for each submission (`python -m autograder.classroom.gradescope run`).

The parts, in this folder: the zip and what it holds (autograder_zip.py); which uploaded file is graded
(upload.py), the isolation level it runs at and the processes it leaves (levels.py), the entries of results.json
(result_entries.py), the settings both sides read (settings.py). `python -m autograder.classroom.gradescope` runs
`main` (__main__.py).

Gradescope's layout (https://gradescope-autograders.readthedocs.io/en/latest/specs/):

    /autograder/source        the zip, unpacked           /autograder/submission   what the student uploaded
    /autograder/results/results.json   what we write      /autograder/run_autograder   run per submission

`AUTOGRADER_ROOT` (default `/`) prefixes those paths, so the whole flow runs in a test without root.

results.json: one test per graded cell (`name`, `score`, `max_score`, `status`, `output`, `visibility`), one
informational entry per graded notebook (its score and the grader's notes, shown no earlier than its most
hidden test), a top-level `score` and `output` (which files were considered and which was graded, the
isolation: nothing about a test), every text as plain text (`output_format` "text"). Whatever happens (no
notebook, not a notebook of this course, no answers, a file over the size cap, an isolation level that
cannot start, the time budget spent, a grader that crashes) a valid results.json says why: never a
traceback or an error page. A provisional one is written before the first test and after each notebook.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path

from autograder import paths
from autograder.classroom.gradescope.levels import (allowed_levels, become_subreaper, end_descendants,
                                                    grade_with_fallback, isolation_sentence, level_limits,
                                                    new_sandbox)
from autograder.classroom.gradescope.result_entries import (crashed, failure, results_json, summary_test, tests_of,
                                                            write, zero_tests)
from autograder.classroom.gradescope.settings import (CONFIG, COURSE_INDEX, DEFAULT_BUDGET_SECONDS, DEFAULT_VISIBILITY,
                                                      DEFAULT_WEAKEST, GRADING_DIR, PENDING, ROOT_VARIABLE, WHEN_SHOWN,
                                                      GradingUnavailable)
from autograder.classroom.gradescope.upload import candidates, consider
from autograder.classroom.gradescope.autograder_zip import course_index, grading_copy, torch_pin


# ------------------------------------------------------------------------------------ one submission

def layout(root: str | Path | None = None) -> dict:
    root = Path(root if root is not None else os.environ.get(ROOT_VARIABLE, "/"))
    base = root / "autograder"
    return {"root": root, "source": base / "source", "submission": base / "submission",
            "results": base / "results" / "results.json"}


def load_config() -> dict:
    path = paths.ROOT / CONFIG
    config = json.loads(path.read_text()) if path.exists() else {}
    config.setdefault("assignments", [])
    config["visibility"] = {**DEFAULT_VISIBILITY, **config.get("visibility", {})}
    config.setdefault("seed", 0)
    config.setdefault("limits", {})
    config.setdefault("weakest_isolation", DEFAULT_WEAKEST)
    config.setdefault("budget_seconds", DEFAULT_BUDGET_SECONDS)
    return config


def grading_sources(wanted: list[str] | None = None) -> list:
    """The notebooks this autograder grades: the zip's grading copies, or (in a checkout) the same copies
    made from solutions/ and course/."""
    from autograder.engine import notebooks

    folder = paths.ROOT / GRADING_DIR
    if folder.is_dir():
        return [s for s in notebooks.sources(folder) if not wanted or s.assignment in wanted]
    found = []
    for source in notebooks.sources():
        if wanted and source.assignment not in wanted:
            continue
        try:
            found.append(notebooks.Source(source.path, grading_copy(source)))
        except ValueError as error:
            if wanted:
                raise
            print(f"left out: {error}", file=sys.stderr)  # every notebook: one not released yet is not one
    return found


def load_course_index() -> dict:
    path = paths.ROOT / GRADING_DIR / COURSE_INDEX
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    from autograder.engine import notebooks

    return course_index(notebooks.sources())


def _within(seconds: float, work):
    """work() in a thread, waited for at most `seconds`: (True, value) or (False, None) if it is still running
    (it is left behind: run() ends every process of the grading before the final write)."""
    box: dict = {}

    def target():
        try:
            box["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            box["error"] = error

    thread = threading.Thread(target=target, name="grading", daemon=True)
    thread.start()
    thread.join(max(0.0, seconds))
    if thread.is_alive():
        return False, None
    if "error" in box:
        raise box["error"]
    return True, box["value"]


class GradescopeRun:
    """One submission's results as they are made: provisional (every test not yet run says so) until each
    notebook is graded through `runner`, written after each step."""

    def __init__(self, runner, where: dict, config: dict, started: float):
        self.runner, self.where, self.config, self.started = runner, where, config, started
        self.visibility = config["visibility"]
        self.budget = float(config.get("budget_seconds") or DEFAULT_BUDGET_SECONDS)
        self.notes: list[str] = []         # the top-level output: nothing in it describes a test
        self.after: list[str] = []         # ... and its last lines
        self.entries: list[dict] = []      # one per notebook to grade: {"tests", "summary", "score"}
        self.limit = int(float(config.get("max_submission_mb") or 0) * 1_000_000) or None  # None: grade's cap

    def left(self) -> float:
        return self.budget - (time.monotonic() - self.started)

    def snapshot(self) -> dict:
        tests, score = [], 0.0
        for entry in self.entries:
            tests += entry["tests"]
            if entry.get("summary"):
                tests.append(entry["summary"])
            score += entry.get("score", 0.0)
        return results_json(score, "\n".join(self.notes + self.after), tests, self.visibility)

    def save(self) -> None:
        write(self.where["results"], self.snapshot())

    def run(self) -> dict:
        wanted = self.config["assignments"]
        sources = grading_sources(wanted)
        prefix_of = (lambda s: f"{s.assignment}: ") if len(sources) > 1 else (lambda s: "")
        top = self.where["submission"]
        files = candidates(top)
        chosen, considered, rejected = consider(files, sources, load_course_index(), top, self.limit)
        course = ", ".join(f"{s.name}.ipynb" for s in sources)
        if not chosen:
            if not files:
                why = f"No notebook (.ipynb) was submitted. Upload your copy of {course}."
            else:
                why = ("None of the submitted files is a notebook this autograder grades: " + "; ".join(rejected)
                       + f". Upload your copy of {course}.")
            return failure(why, sources, self.visibility, prefix_of)
        self.notes += ["Files considered:", *considered]
        for path, nb, source in chosen:
            prefix = prefix_of(source)
            self.entries.append({"path": path, "nb": nb, "source": source, "prefix": prefix,
                                 "tests": zero_tests(source, self.visibility, PENDING, prefix)})
        self.save()  # before the first test
        levels: list[str] = []
        for number, entry in enumerate(self.entries):
            stop = self.grade(entry, levels)
            self.save()
            if stop:
                for later in self.entries[number + 1:]:
                    later["tests"] = zero_tests(later["source"], self.visibility, stop, later["prefix"])
                break
        for sentence in dict.fromkeys(levels):
            self.after.append(sentence)
        return self.snapshot()

    def grade(self, entry: dict, levels: list) -> str | None:
        """Grade one notebook into `entry`; a reason if nothing after it may be graded."""
        from autograder.engine import notebooks

        source, prefix = entry["source"], entry["prefix"]
        shown = entry["path"].relative_to(self.where["submission"]).as_posix()
        if not notebooks.submitted_answers(entry["nb"]):
            entry["tests"] = zero_tests(source, self.visibility, f"{shown} has no answer cells (were they deleted, "
                                        "or their metadata removed?): start again from the course notebook and copy "
                                        "your answers into its answer cells.", prefix)
            self.notes.append(f"{shown}: no answer cells, nothing graded.")
            return None
        left = self.left()
        if left <= 0:
            why = self.out_of_time("before this notebook")
            entry["tests"] = zero_tests(source, self.visibility, why, prefix)
            return why
        restarts = level_limits(self.config, "full").restarts
        # A notebook whose every test loops costs at most restarts + 1 test timeouts, and one whose every answer
        # cell loops one time limit per answer cell (each has its own): each test's time limit is cut (never
        # raised) so that this worst case of every notebook left fits.
        units = sum(min(len(e["source"].cells("test")), restarts + 1) + len(e["source"].cells("answer")) + 1
                    for e in self.entries[self.entries.index(entry):])
        cap = left / (units + 1)  # one more: starting the sandbox, and a margin
        text = notebooks.read_text(entry["path"], self.limit)  # the upload as it is (read once already, capped)
        try:
            done, value = _within(left, lambda: grade_with_fallback(self.runner, text, f"{source.name}.ipynb",
                                                                    source, self.config, cap))
        except GradingUnavailable as error:
            why = (f"Grading is unavailable on this autograder: {error}. Your submission was not graded (this is "
                   "not your mistake): tell your instructor, who can fix the autograder and regrade it.")
            entry["tests"] = zero_tests(source, self.visibility, why, prefix)
            self.notes.append(why)
            return why
        if not done:
            why = self.out_of_time("while grading this notebook")
            entry["tests"] = zero_tests(source, self.visibility, why, prefix)
            self.notes.append(f"{shown}: {why}")
            return self.out_of_time("before this notebook")
        report, level, failures = value
        entry["tests"] = tests_of(report, source, self.visibility, prefix, level_limits(self.config, level, cap))
        entry["score"] = report.score
        notes = [n for n in report.notes if not n.startswith("graded with weaker isolation")]
        text = "\n".join([f"{shown}: graded as {source.name}.ipynb, {report.score:g} / {report.max_score:g}.",
                          *notes])
        entry["summary"] = summary_test(f"{prefix}{source.name}.ipynb: score and notes", text,
                                        report.score == report.max_score, entry["tests"])
        when = entry["summary"]["visibility"]
        if when != "visible":
            self.notes.append(f"{shown}: your score and the feedback of its tests are shown {WHEN_SHOWN[when]}.")
        levels.append(isolation_sentence(report.isolation, level, failures))
        return None

    def stopped(self, why: str) -> dict:
        """The results so far, every test not run saying the autograder was stopped."""
        text = (f"Not graded: the autograder was stopped ({why}) before this test ran. This is not your mistake: "
                "tell your instructor.")
        for entry in self.entries:
            for test in entry["tests"]:
                if test["output"] == PENDING:
                    test["output"] = text
        return self.snapshot()

    def out_of_time(self, where: str) -> str:
        return (f"Not graded: the autograder's time budget ({round(self.budget, 1):g} s, kept below Gradescope's own limit "
                f"so that a result is always written) ran out {where}. Something in your answers is very slow or "
                "loops: run the notebook's tests in Jupyter to find it, then submit again.")


def results(runner, layout_: dict, config: dict, started: float | None = None) -> dict:
    """The results.json of the submission under `layout_`, graded through `runner` (provisional ones written as
    it goes)."""
    return GradescopeRun(runner, layout_, config, time.monotonic() if started is None else started).run()


class Stopped(BaseException):
    """run_autograder was asked to stop (SIGTERM, SIGINT): the final results.json is still written."""


def run(root: str | Path | None = None, reap: bool = False) -> dict:
    """Grade the submission under `root` and write its results.json (always). `reap` (run_autograder's
    path): this process is a child subreaper, and every process left of the grading is killed before the
    final write, so nothing the student's code started can change results.json after it."""
    where = layout(root)
    start = time.monotonic()
    if reap:
        become_subreaper()

        def stop(signum, frame):
            raise Stopped(signal.Signals(signum).name)

        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, stop)
    this_run = runner = None
    try:
        config = load_config()
        runner = new_sandbox()  # started by its first probe; its root is ended with the rest below (`reap`)
        this_run = GradescopeRun(runner, where, config, start)
        data = this_run.run()
    except Stopped as error:
        data = this_run.stopped(str(error)) if this_run is not None else crashed(error)
    except BaseException as error:  # noqa: BLE001 - a student sees a score and a sentence, never a traceback
        traceback.print_exc()  # run_autograder's stdout: the instructor's log
        data = crashed(error)
    finally:
        if runner is not None:
            runner.close()
    data["execution_time"] = round(time.monotonic() - start, 1)
    if reap:
        killed = end_descendants()
        print(f"ended {killed} processes left of the grading")
    write(where["results"], data)
    print(f"score {data['score']:g}; {len(data['tests'])} tests; {where['results']}")
    print(data["output"])
    return data


def check() -> int:
    """What setup.sh runs last: the pinned PyTorch imports, and the isolation this machine gives, against the
    weakest the autograder may use (the build fails if no allowed level works: grading would be unavailable)."""
    import torch

    expected = torch_pin().split("==")[1]
    if torch.__version__.split("+")[0] != expected:
        print(f"torch {torch.__version__} is installed, the course needs {expected}", file=sys.stderr)
        return 1
    config = load_config()
    try:
        levels = allowed_levels(config)
    except GradingUnavailable as error:
        print(f"grading would be unavailable: {error}", file=sys.stderr)
        return 1
    problems = []
    with new_sandbox() as runner:
        for level in levels:
            isolation = runner.probe(level_limits(config, level)).isolation
            layers = isolation.describe() if isolation is not None else "not measured"
            if isolation is not None and isolation.at_least(levels[-1]):
                print(f"torch {torch.__version__}; isolation here: {layers}; grading at {level!r} (weakest allowed: "
                      f"{levels[-1]!r})")
                return 0
            problems.append(f"{level}: {layers}")
    print(f"torch {torch.__version__}; isolation here: {'; '.join(problems)}: below the weakest level allowed "
          f"({levels[-1]!r}), so every submission would say grading is unavailable", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.classroom.gradescope")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="grade /autograder/submission into /autograder/results/results.json")
    p.add_argument("--root", help=f"prefix of /autograder (default: ${ROOT_VARIABLE} or /)")
    sub.add_parser("check", help="the environment imports and grades")
    args = parser.parse_args(argv)
    if args.command == "check":
        return check()
    run(args.root, reap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
