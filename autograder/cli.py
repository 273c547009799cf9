"""python -m autograder COMMAND: a thin layer over plain functions (grading, release, classroom, report)."""

from __future__ import annotations

import argparse
import textwrap
import json
import sys
import time
from pathlib import Path

from autograder import paths
from autograder.engine.notebooks import NotebookError
from autograder.engine.sandbox.limits import ISOLATION_LEVELS


def _limits(args):
    """The grading limits the options ask for (--isolation or $AUTOGRADER_ISOLATION, --timeout, --memory-mb)."""
    import os

    from autograder.engine.sandbox import Limits

    isolation = getattr(args, "isolation", None) or os.environ.get("AUTOGRADER_ISOLATION", "full")
    return Limits.from_settings({"seconds_per_test": getattr(args, "timeout", None) or None,
                                 "memory_mb": getattr(args, "memory_mb", None) or None}, isolation)


def _seed(args) -> int:
    """--seed if given, else the grading configuration's base seed (grading.base_seed)."""
    from autograder.engine import grading

    return args.seed if getattr(args, "seed", None) is not None else grading.base_seed()


def cmd_grade(args) -> int:
    from autograder.engine import grading

    from autograder.engine import notebooks

    path = Path(args.notebook)
    try:
        submission = notebooks.submission_from_path(path)  # read once; bad input fails fast, before the sandbox
        with grading.new_sandbox() as runner:
            report, _ = grading.grade_submission(submission, runner, seed=_seed(args), limits=_limits(args),
                                                 autograded=False)
    except NotebookError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(format_report(report.to_json()))
    return 0


def format_report(report: dict) -> str:
    width = max((len(c["grade_id"]) for c in report["cells"]), default=10)
    lines = [f"{report['notebook']}  ({report.get('assignment', '')})", ""]
    for c in report["cells"]:
        mark = "PASS" if c["status"] == "passed" else c["status"].upper()
        lines.append(f"  {mark:<7} {c['grade_id']:<{width}}  {c['points']:g}/{c['max_points']:g}")
        if c["status"] != "passed":
            lines.append(f"          {c['feedback']}")
    for note in report.get("notes", []):
        lines += ["", "  NOTE    " + textwrap.fill(note, 100, subsequent_indent="          ")]
    lines += ["", f"  score: {report['score']:g} / {report['max_score']:g}"]
    return "\n".join(lines)


def progress_printer(args):
    """What a long command says as it goes, a line at a time to stderr (nothing with --quiet): stdout stays
    the result alone, for scripts."""
    if getattr(args, "quiet", False):
        return None
    start = time.monotonic()

    def say(line: str) -> None:
        print(f"[{time.monotonic() - start:6.1f} s] {line}", file=sys.stderr, flush=True)

    return say


def cmd_release(args) -> int:
    from autograder.engine import grading
    from autograder.maintain import release

    start = time.monotonic()
    try:
        with grading.new_sandbox(for_a_class=True) as runner:
            reports = release.release(runner, check=not args.no_check, progress=progress_printer(args))
    except release.ReleaseRefused as error:
        print(f"release refused: {error}", file=sys.stderr)
        return 1
    for r in reports:
        print(f"  {r.notebook:<40} reference {r.score:g}/{r.max_score:g}")
    print(f"released {len(list(paths.COURSE.glob('*/*.ipynb')))} notebooks to {paths.COURSE} "
          f"in {time.monotonic() - start:.1f} s")
    return 0


def cmd_autograde(args) -> int:
    from autograder.classroom import autograde as classroom, gradebook, submissions
    from autograder.engine import grading

    runner = grading.new_sandbox(for_a_class=True)  # started by autograde once it has work (none with a scheduler)
    try:
        from autograder.classroom import lateness

        policy, per_hour = lateness.parse_policy(getattr(args, "late_policy", None), getattr(args, "late_penalty", None))
        result = classroom.autograde(runner=runner, workers=args.workers, scheduler=args.scheduler,
                                     assignment=args.assignment,
                                     force=args.force, seed=_seed(args), limits=_limits(args), db_url=args.db_url,
                                     progress=not args.quiet,
                                     allow_weak_isolation=getattr(args, "allow_weak_isolation", False),
                                     late_policy=policy, late_penalty=per_hour)
    except (classroom.WeakIsolation, submissions.UnknownAssignment, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        runner.close()
    missing = [p for p in result.problems if p.get("status") != "chosen"]
    print(f"graded {len(result.graded)} notebooks, {result.skipped} already up to date, "
          f"{len(missing)} missing, in {result.seconds:.1f} s")
    for p in result.problems:
        print(f"  {p['student']}/{p['assignment']}: {p['reason']}")
    late = [r for r in result.graded if r.get("lateness", {}).get("late")]
    if late:
        print(f"  late ({len(late)}, policy {args.late_policy}): " + ", ".join(
            f"{r['student']}/{r['notebook'].removesuffix('.ipynb')} -{r.get('late_penalty', 0):g}" for r in late))
    if not args.quiet:
        print(gradebook.grade_table(classroom.reports(), _terminal_width()))
    return 0


def _terminal_width() -> int | None:
    """The terminal's width where stdout is one; None (no limit) in a pipe or a file, for tools."""
    import shutil

    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def cmd_feedback(args) -> int:
    from autograder.classroom import gradebook, submissions

    written = gradebook.feedback(args.db_url, progress=progress_printer(args))
    print(f"wrote {len(written)} feedback pages under {submissions.home() / 'feedback'}")
    return 0


def cmd_export(args) -> int:
    from autograder.classroom import export_command

    return export_command.export(args, progress_printer(args))  # nbgrader's CSV, or an LMS's import CSV


def cmd_report(args) -> int:
    from autograder.classroom import autograde as classroom, class_report

    say = progress_printer(args)
    if say:
        say(f"reading the graded reports in {classroom.autograded_dir()}")
    reports = classroom.reports()
    if say:
        for student in sorted({r["student"] for r in reports}):
            mine = [r for r in reports if r["student"] == student]
            say(f"  {student}: {len(mine)} notebooks, {sum(r['score'] for r in mine):g}/"
                f"{sum(r['max_score'] for r in mine):g}")
        say("drawing the figures")
    path = class_report.write(reports, Path(args.output) if args.output else None)
    print(f"wrote {path}")
    return 0


def cmd_collect(args) -> int:
    from autograder.classroom import collect_command

    return collect_command.collect(args)  # the submissions, the refusals, the copies chosen, the late ones


def cmd_gradescope(args) -> int:
    from autograder.classroom.gradescope import autograder_zip

    return autograder_zip.command(args)  # build the zip, or --test: try one on a submission


def cmd_demo(args) -> int:
    from autograder.classroom import submissions
    from autograder.maintain import samples

    if cmd_release(argparse.Namespace(no_check=False)) != 0:
        return 1
    students = samples.write_sample_class(submissions.submitted_dir())
    print(f"sample class: {', '.join(students)}")
    code = cmd_autograde(argparse.Namespace(workers=args.workers, scheduler=None, assignment=None, force=True,
                                            seed=None, timeout=None, memory_mb=None, db_url=None, quiet=False,
                                            allow_weak_isolation=True, late_policy="none", late_penalty=None))  # a demo on a laptop or Binder
    cmd_feedback(argparse.Namespace(db_url=None))
    cmd_export(argparse.Namespace(output=None, db_url=None))
    cmd_report(argparse.Namespace(output=None))
    return code


# Each command's help ends with examples (tests/more/test_cli.py checks every command has them).
EXAMPLES = {
    "grade": """
  python -m autograder grade course/01_square/01_square.ipynb
  python -m autograder grade mine.ipynb --json            one JSON object, for tools
  python -m autograder grade mine.ipynb --timeout 60      a slow machine: more time per test""",
    "release": """
  python -m autograder release                 grade the reference answers, then regenerate course/
  python -m autograder release --quiet         the same, without a line per notebook on stderr
  python -m autograder release --no-check      regenerate course/ without grading the references first""",
    "autograde": """
  python -m autograder autograde --workers 4
  python -m autograder autograde --assignment 01_square --force
  python -m autograder autograde --late-policy subtract --late-penalty 0.5    half a point a started hour late
  python -m autograder autograde --scheduler tcp://grader-host:8786
  python -m autograder autograde --db-url postgresql://grader@db-host/gradebook""",
    "feedback": """
  python -m autograder feedback                a feedback page per graded submission, under .grading/feedback/
  python -m autograder feedback --db-url postgresql://grader@db-host/gradebook""",
    "export": """
  python -m autograder export                                   nbgrader's CSV: .grading/grades.csv
  python -m autograder export --format canvas --roster canvas-grades.csv
  python -m autograder export --format canvas --column 01_square="Notebook 01 - The skeleton (998877)"
  python -m autograder export --format moodle --roster moodle-grades.csv --assignment 01_square""",
    "report": """
  python -m autograder report                  .grading/class-report.html
  python -m autograder report --output week1.html""",
    "collect": """
  python -m autograder collect ~/Downloads/submissions.zip
  python -m autograder collect ~/Downloads/submissions/ --assignment 01_square
  python -m autograder collect ~/Downloads/moodle.zip --due "2024-01-08 23:59"    Moodle times after it: late""",
    "gradescope": """
  python -m autograder gradescope --assignment 01_square       .grading/gradescope-01_square.zip
  python -m autograder gradescope --all --budget 540
  python -m autograder gradescope --assignment 01_square --visibility hidden=after_due_date
  python -m autograder gradescope --test mine.ipynb --assignment 01_square    try it as Gradescope runs it
  python -m autograder gradescope --test upload/ --zip gradescope-01_square.zip --json""",
    "demo": """
  python -m autograder demo                    release, grade the sample class, print the grades
  python -m autograder demo --workers 1""",
}


def _version() -> str:
    import autograder

    return autograder.__version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder",
                                     description="Grade notebooks of the custom autograd.Function course.",
                                     epilog="examples:\n  python -m autograder grade mine.ipynb\n"
                                            "  python -m autograder release\n  python -m autograder demo\n"
                                            "  python -m autograder COMMAND --help    what a command does, "
                                            "with examples",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}",
                        help="print the course package's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_parser = sub.add_parser

    def command(name: str, **kwargs):
        return add_parser(name, epilog="examples:" + EXAMPLES[name], description=kwargs.get("help"),
                          formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)

    def quiet(p):
        p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")

    def limits(p):
        p.add_argument("--timeout", type=float, help="seconds allowed per test (answers + one test cell)")
        p.add_argument("--memory-mb", type=int, help="memory allowed per test, in MB")
        p.add_argument("--seed", type=int, default=None,
                       help="base seed of the checks' random inputs (default: the grading configuration's, "
                            "AUTOGRADER_SEED or the seed in <grading home>/config.json)")
        p.add_argument("--isolation", choices=ISOLATION_LEVELS,
                       help="force a weaker isolation level (default: full, or $AUTOGRADER_ISOLATION)")

    p = command("grade", help="grade ONE notebook against the hidden tests and print a report")
    p.add_argument("notebook", help="a copy of a course notebook with your answers")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    limits(p)
    p.set_defaults(func=cmd_grade)

    p = command("release", help="regenerate course/ from solutions/ (refuses if a solution fails)")
    p.add_argument("--no-check", action="store_true", help="skip grading the reference solutions first")
    quiet(p)
    p.set_defaults(func=cmd_release)

    p = command("autograde", help="grade every submission into the gradebook")
    p.add_argument("--workers", type=int, default=1, help="grading processes on this machine")
    p.add_argument("--scheduler", help="address of a Dask scheduler (tcp://host:8786) to grade on")
    p.add_argument("--assignment", help="only this assignment")
    p.add_argument("--force", action="store_true", help="regrade even unchanged submissions")
    p.add_argument("--allow-weak-isolation", action="store_true",
                   help="grade even where namespaces, Landlock or seccomp are missing (say so in the reports)")
    p.add_argument("--db-url", help="gradebook SQLAlchemy URL (default: SQLite in the grading folder)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or table")
    p.add_argument("--late-policy", choices=("none", "zero", "subtract"), default="none",
                   help="what a submission collect recorded late loses: nothing (default), everything, or "
                        "--late-penalty points per started hour late (as nbgrader's LateSubmissionPlugin)")
    p.add_argument("--late-penalty", type=float, metavar="POINTS",
                   help="with --late-policy subtract: points lost per started hour late")
    limits(p)
    p.set_defaults(func=cmd_autograde)

    p = command("feedback", help="write feedback HTML for every graded submission")
    p.add_argument("--db-url", help="gradebook SQLAlchemy URL (default: SQLite in the grading folder)")
    quiet(p)
    p.set_defaults(func=cmd_feedback)

    p = command("export", help="write the grades CSV")
    p.add_argument("--output", help="CSV path (default: <grading folder>/grades.csv)")
    p.add_argument("--db-url", help="gradebook SQLAlchemy URL (default: SQLite in the grading folder)")
    quiet(p)
    p.add_argument("--format", choices=("nbgrader", "canvas", "moodle"), default="nbgrader",
                   help="nbgrader's CSV (default), or the gradebook import CSV of Canvas or Moodle "
                        "(default path: <grading folder>/grades-<format>.csv)")
    p.add_argument("--roster", help="canvas/moodle: the LMS's own grades export CSV, for names, SIS ids, "
                                    "sections, emails and ID numbers, and the columns of its assignments "
                                    "(required for moodle)")
    p.add_argument("--column", action="append", metavar="ASSIGNMENT=COLUMN",
                   help="canvas/moodle: the LMS column an assignment's grades go to, so the import updates it "
                        "instead of adding one: Canvas 'Notebook 01 - The skeleton (998877)' (title and id, the "
                        "id alone, or a title the --roster has), Moodle 'Assignment: Notebook 01'; repeatable")
    p.add_argument("--assignment", action="append",
                   help="only this assignment (default: every graded one); repeatable")
    p.set_defaults(func=cmd_export)

    p = command("report", help="write the class report (HTML with figures)")
    p.add_argument("--output", help="HTML path (default: <grading folder>/class-report.html)")
    quiet(p)
    p.set_defaults(func=cmd_report)

    p = command("collect", help="import a folder of notebooks or an LMS zip as submissions")
    p.add_argument("source", help="folder or .zip")
    p.add_argument("--assignment", help="only notebooks of this assignment")
    p.add_argument("--due", metavar="DATE", help="the due date (2024-01-08 23:59, the LMS's time): a Moodle "
                   "submission after it is recorded late (Canvas marks late files itself)")
    p.set_defaults(func=cmd_collect)

    p = command("gradescope", help="write a Gradescope autograder zip (setup.sh, run_autograder, sources)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--assignment", help="the notebook's assignment, e.g. 01_square")
    which.add_argument("--all", action="store_true", help="every notebook of the course in one autograder")
    p.add_argument("--output", help="zip path (default: <grading folder>/gradescope-<assignment>.zip)")
    p.add_argument("--visibility", action="append", metavar="KIND=VALUE",
                   help="who sees what when: KIND visible (checks without hidden tests), hidden (cells with "
                        "hidden tests) or stdout; VALUE visible, after_published, after_due_date or hidden "
                        "(default: visible=visible hidden=after_published stdout=hidden); repeatable")
    p.add_argument("--weakest-isolation", choices=("full", "no-namespaces"),
                   help="the weakest isolation Gradescope may grade at (default: no-namespaces, Landlock and "
                        "seccomp without namespaces); below it a submission says grading is unavailable")
    p.add_argument("--budget", type=float, metavar="SECONDS",
                   help="total grading time, below Gradescope's timeout (default: 480, for its 10 minutes)")
    p.add_argument("--max-submission-mb", type=float, metavar="MB",
                   help="largest notebook read (default: 20); a larger one scores 0 with a sentence")
    p.add_argument("--test", metavar="SUBMISSION",
                   help="try the autograder on SUBMISSION (a notebook or a folder) as Gradescope runs it, in a "
                        "temporary /autograder, and print the results and what a student sees")
    p.add_argument("--zip", help="with --test: the autograder zip to try (default: build one from --assignment)")
    p.add_argument("--json", action="store_true", help="with --test: print results.json itself")
    limits(p)
    p.set_defaults(func=cmd_gradescope)

    p = command("demo", help="release, grade a bundled sample class, print grades, write feedback")
    p.add_argument("--workers", type=int, default=2, help="grading processes (default: 2)")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    import os

    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # `grade X --json | head -1`: the reader has what it wanted; nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush does not fail again
        return 0
