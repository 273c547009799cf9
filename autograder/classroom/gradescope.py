"""Grading on Gradescope: the autograder zip (`python -m autograder gradescope`) and what its
`run_autograder` runs for each submission (`python -m autograder.classroom.gradescope run`).

The zip holds `setup.sh` (the pinned environment: Python 3.11, CPU PyTorch, the grader's dependencies),
`run_autograder`, this package, a grading copy of each chosen notebook (`grading/<assignment>/`: the
instructor's test cells, hidden tests included, with the released, empty answer cells: no reference answer
travels), `grading/course.json` (every course notebook's cell ids, so another assignment's notebook is named
as such), the project's `pyproject.toml`, `requirements.txt` (the hashed lock requirements/grader.lock) and
`gradescope.json` (what the zip grades, with which limits, isolation, time budget and size cap, and who sees
which test when).

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
import ctypes
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
import zipfile
from pathlib import Path

from autograder import paths

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
# Most shown first: a summary of several tests is shown no earlier than the last of them.
SHOWN_ORDER = ("visible", "after_due_date", "after_published", "hidden")
WHEN_SHOWN = {"after_due_date": "after the due date", "after_published": "when your instructor publishes the grades",
              "hidden": "to your instructor only"}
# Test kinds: a graded cell whose hidden block is empty is a "visible" check (students run it in their
# notebook anyway); a cell with a hidden block is "hidden". "stdout" is run_autograder's own output.
DEFAULT_VISIBILITY = {"visible": "visible", "hidden": "after_published", "stdout": "hidden"}
CONFIG = "gradescope.json"
ROOT_VARIABLE = "AUTOGRADER_ROOT"
PACKAGE_SKIP = {"__pycache__", "build"}  # build: the C++ kernel is compiled by setup.sh, for its own torch
GRADING_DIR = "grading"             # in the zip: the grading copies of the notebooks, and course.json
COURSE_INDEX = "course.json"
# Isolation on Gradescope: the levels a grading may use, strongest first ("none" never: there the learner's
# code reads the autograder's files and is root). A level counts as reached only with its layers in force.
LEVELS = ("full", "no-namespaces")
DEFAULT_WEAKEST = "no-namespaces"
# Gradescope's own limit is 10 minutes by default (on half a CPU): the budget ends grading before it, so
# a results.json is always written.
GRADESCOPE_TIMEOUT_SECONDS = 600
GRADESCOPE_LONGEST_TIMEOUT_SECONDS = 2400  # what its assignment settings allow at most
DEFAULT_BUDGET_SECONDS = 480
PR_SET_CHILD_SUBREAPER = 36
MAX_CANDIDATES = 20  # notebooks of one upload read (each under the size cap): a student uploads one or two

PENDING = ("Not graded yet: the autograder was still grading when this was written. If you see this, the run "
           "was cut off before this test (by Gradescope's time limit?): it is not your mistake, tell your "
           "instructor.")


class GradingUnavailable(RuntimeError):
    """No isolation level the instructor allows can start here: nothing is graded."""


# ------------------------------------------------------------------------------------------- the zip

def parse_visibility(items: list[str] | None) -> dict:
    """`["hidden=visible", ...]` -> the full visibility table; ValueError for an unknown kind or value."""
    table = dict(DEFAULT_VISIBILITY)
    for item in items or []:
        kind, sep, value = item.partition("=")
        if not sep or kind not in DEFAULT_VISIBILITY or value not in VISIBILITIES:
            raise ValueError(f"--visibility {item!r}: expected KIND=VALUE with KIND one of "
                             f"{', '.join(DEFAULT_VISIBILITY)} and VALUE one of {', '.join(VISIBILITIES)}")
        table[kind] = value
    return table


def requirements() -> str:
    """The grading environment's lock, requirements/grader.lock: the grader extra and what it needs, each pinned
    and hashed, torch as its CPU build (tools/lock.sh writes it). setup.sh installs it and nothing else."""
    return (paths.ROOT / "requirements" / "grader.lock").read_text()


def torch_pin() -> str:
    """pyproject.toml's torch pin (torch==2.13.0): the release setup.sh's check expects."""
    import tomllib

    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    return next(r for r in project["dependencies"] if re.match(r"torch\s*==", r)).replace(" ", "")


def grading_copy(source, course: Path | None = None):
    """The notebook grading needs: `source`'s cells (its test cells with their hidden tests), each answer
    cell as released in course/ (no reference answer). ValueError if course/ lacks one of its answer cells."""
    import copy

    from autograder.engine import notebooks
    from autograder.engine.notebooks import nbgrader_meta, role

    path = (course or paths.COURSE) / source.assignment / source.path.name
    if not path.exists():
        raise ValueError(f"{path} is missing: run `python -m autograder release` first")
    public = {nbgrader_meta(c)["grade_id"]: c.source for c in notebooks.read(path).cells if role(c) == "answer"}
    missing = [g for g in source.grade_ids("answer") if g not in public]
    if missing:
        raise ValueError(f"{path} has no answer cell {', '.join(missing)}: run `python -m autograder release`")
    nb = copy.deepcopy(source.notebook)
    for cell in nb.cells:
        if role(cell) == "answer":
            cell.source = public[nbgrader_meta(cell)["grade_id"]]
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    if any(m.group(2) == "SOLUTION" for c in nb.cells for m in notebooks.MARKER.finditer("".join(c.source))):
        raise ValueError(f"{source.path}: a solution marker outside its answer cells; nothing was written")
    return nb


def course_index(sources: list) -> dict:
    """assignment -> {"notebook": file name, "ids": the grade ids of its answer and test cells}."""
    return {s.assignment: {"notebook": s.path.name,
                           "ids": sorted(set(s.grade_ids("answer")) | set(s.grade_ids("test")))} for s in sources}


def build(output: Path | None = None, assignments: list[str] | None = None, visibility: dict | None = None,
          limits: dict | None = None, seed: int | None = None, isolation: str | None = None,
          weakest_isolation: str | None = None, budget_seconds: float | None = None,
          max_submission_mb: float | None = None) -> Path:
    """Write the Gradescope autograder zip for `assignments` (None: every notebook of the course)."""
    import nbformat

    from autograder.engine import grading, notebooks
    from autograder.classroom import gradescope_scripts as scripts

    sources = notebooks.sources()
    known = sorted({s.assignment for s in sources})
    chosen = known if not assignments else list(dict.fromkeys(assignments))
    unknown = [a for a in chosen if a not in known]
    if unknown:
        raise ValueError(f"no such assignment: {', '.join(unknown)} (course assignments: {', '.join(known)})")
    for name, value in (("--isolation", isolation), ("--weakest-isolation", weakest_isolation)):
        if value is not None and value not in LEVELS:
            raise ValueError(f"{name} {value}: Gradescope grades at {' or '.join(LEVELS)} only (at 'none' a "
                             "student's code could read the autograder's files and change its results)")
    if isolation and weakest_isolation and LEVELS.index(isolation) > LEVELS.index(weakest_isolation):
        raise ValueError(f"--isolation {isolation} is weaker than --weakest-isolation {weakest_isolation}")
    if budget_seconds is not None and not 0 < budget_seconds < GRADESCOPE_LONGEST_TIMEOUT_SECONDS:
        raise ValueError(f"--budget {budget_seconds:g}: seconds, more than 0 and below Gradescope's longest timeout "
                         f"({GRADESCOPE_LONGEST_TIMEOUT_SECONDS} s; its default is {GRADESCOPE_TIMEOUT_SECONDS} s)")
    if max_submission_mb is not None and not max_submission_mb > 0:
        raise ValueError(f"--max-submission-mb {max_submission_mb:g}: must be more than 0")
    copies = {s.assignment: grading_copy(s) for s in sources if s.assignment in chosen}  # refuses a stale course/
    name = chosen[0] if len(chosen) == 1 else "all"
    output = Path(output or paths.grading_home() / f"gradescope-{name}.zip")
    output.parent.mkdir(parents=True, exist_ok=True)
    seed = grading.base_seed() if seed is None else int(seed)  # the course's: Gradescope draws the same inputs
    config = {"assignments": chosen, "visibility": dict(visibility or DEFAULT_VISIBILITY), "seed": seed,
              "limits": dict(limits or {}), "weakest_isolation": weakest_isolation or DEFAULT_WEAKEST,
              "budget_seconds": float(budget_seconds or DEFAULT_BUDGET_SECONDS),
              "max_submission_mb": float(max_submission_mb or notebooks.MAX_SUBMISSION_MB)}
    if isolation:
        config["isolation"] = isolation
    pin = torch_pin()
    tmp = output.with_name(f".{output.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        def add(arcname: str, text: str, executable: bool = False) -> None:
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            archive.writestr(info, text)

        add("setup.sh", scripts.SETUP.replace("@TORCH@", pin), executable=True)
        add("run_autograder", scripts.RUN_AUTOGRADER, executable=True)
        add("requirements.txt", requirements())
        add("pyproject.toml", (paths.ROOT / "pyproject.toml").read_text())
        add(CONFIG, json.dumps(config, indent=1) + "\n")
        package = Path(__file__).resolve().parent.parent
        for path in sorted(package.rglob("*")):
            if path.is_file() and not PACKAGE_SKIP & set(path.relative_to(package).parts) \
                    and path.suffix not in {".pyc", ".pyo"}:
                archive.write(path, f"autograder/{path.relative_to(package).as_posix()}")
        for source in sources:
            if source.assignment in copies:
                add(f"{GRADING_DIR}/{source.assignment}/{source.path.name}", nbformat.writes(copies[source.assignment]))
        add(f"{GRADING_DIR}/{COURSE_INDEX}", json.dumps(course_index(sources), indent=1) + "\n")
        for assignment, key in sorted(paths.ANSWER_KEYS.items()):  # hidden tests that read a key (protected)
            if assignment in chosen:
                archive.write(key, key.relative_to(paths.ROOT).as_posix())
    os.replace(tmp, output)
    return output


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


def test_kind(cell_source: str) -> str:
    from autograder.engine.notebooks import HIDDEN

    return "hidden" if HIDDEN.search(cell_source) else "visible"


def candidates(submission: Path) -> list[Path]:
    """Every notebook the student uploaded, whatever its name or folder."""
    if not submission.is_dir():
        return []
    return sorted(p for p in submission.rglob("*.ipynb")
                  if p.is_file() and not {".ipynb_checkpoints", "__MACOSX"} & set(p.relative_to(submission).parts))


def _normalised(text) -> str:
    return "\n".join(line.rstrip() for line in "".join(text).strip().splitlines())


def answered(nb, source) -> tuple[int, int]:
    """(answer cells of `source` whose submitted text differs from the released one, answer cells)."""
    from autograder.engine import notebooks
    from autograder.engine.notebooks import nbgrader_meta

    released = {nbgrader_meta(c)["grade_id"]: _normalised(c.source) for c in source.cells("answer")}
    submitted = notebooks.submitted_answers(nb)
    return sum(1 for g, text in released.items() if g in submitted and _normalised(submitted[g]) != text), \
        len(released)


def consider(files: list[Path], sources: list, index: dict, top: Path, limit: int | None = None):
    """Which file to grade for each assignment, and why. Returns ([(file, notebook, source)] one per
    assignment, [a line per file considered], [a reason per file not graded that is no notebook of this
    autograder]). Among a notebook's copies the one with most answer cells filled in wins (JupyterLab's
    "Duplicate" leaves a blank `-Copy1` beside the answered file), then the one named like the course's."""
    from autograder.engine import notebooks
    from autograder.engine.notebooks import NotebookError

    def shown(path: Path) -> str:
        return path.relative_to(top).as_posix()

    found: dict[str, list] = {}
    lines, rejected = [], []
    if len(files) > MAX_CANDIDATES:
        reason = (f"{len(files) - MAX_CANDIDATES} more notebooks ({', '.join(shown(p) for p in files[MAX_CANDIDATES:][:5])}"
                  f"{', ...' if len(files) > MAX_CANDIDATES + 5 else ''}): an upload is read up to its first "
                  f"{MAX_CANDIDATES} notebooks by name")
        lines.append(f"- {reason}: not considered.")
        rejected.append(reason)
        files = files[:MAX_CANDIDATES]
    for path in files:
        try:
            nb = notebooks.read(path, limit)
        except NotebookError as error:
            reason = str(error).replace(str(top) + os.sep, "")
            lines.append(f"- {reason}: not graded.")
            rejected.append(reason)
            continue
        ids = notebooks.ids_in(nb)
        overlap = {s.assignment: len(ids & (set(s.grade_ids("answer")) | set(s.grade_ids("test")))) for s in sources}
        if not any(overlap.values()):
            other = max(((len(ids & set(entry["ids"])), a) for a, entry in index.items()
                         if a not in overlap), default=(0, ""))
            if other[0]:
                wanted = ", ".join(f"{s.name}.ipynb" for s in sources)
                reason = (f"{shown(path)} is the notebook {index[other[1]]['notebook']} (assignment {other[1]}), "
                          f"not one this autograder grades ({wanted}): upload it to that assignment")
                lines.append(f"- {reason}.")
                rejected.append(reason)
                continue
        try:
            source = notebooks.match_source(nb, path.name, sources)
        except NotebookError as error:
            reason = str(error).replace(str(top) + os.sep, "")
            lines.append(f"- {reason}: not graded.")
            rejected.append(reason)
            continue
        filled, total = answered(nb, source)
        has_answers = bool(notebooks.submitted_answers(nb))
        rank = (filled, has_answers, overlap.get(source.assignment, 0), path.name == source.path.name)
        found.setdefault(source.assignment, []).append((rank, path, nb, source, filled, total))
    chosen = []
    for assignment in sorted(found):
        copies = found[assignment]
        best = max(copies, key=lambda c: c[0])  # max() keeps the first of equals: sorted paths decide ties
        chosen.append(best[1:4])
        for rank, path, nb, source, filled, total in copies:
            what = (f"- {shown(path)} (the notebook {source.name}, {filled} of {total} answer cells filled in)"
                    if rank[1] else f"- {shown(path)} (the notebook {source.name}, without answer cells)")
            if path is best[1]:
                lines.append(f"{what}: chosen{_why_chosen(best, copies)}.")
            else:
                fewer = "fewer answers" if rank[0] < best[0][0] else "as many answers"
                lines.append(f"{what}: not chosen ({fewer} than {shown(best[1])}).")
    return chosen, lines, rejected


def _why_chosen(best, copies) -> str:
    """Why `best` won among `copies` (each (rank, path, ...), rank = (filled, has answers, cells shared,
    named like the course notebook)): its first rank component that beats the next best copy."""
    others = [c for c in copies if c[1] is not best[1]]
    if not others:
        return ""
    runner = max(others, key=lambda c: c[0])
    reasons = ("the copy with the most answer cells filled in", "the copy with answer cells",
               "the copy with the most of the course notebook's cells", "the copy named like the course notebook")
    for mine, theirs, reason in zip(best[0], runner[0], reasons):
        if mine != theirs:
            return f" ({reason})"
    return " (of equal copies, the first by name)"


def _limits(config: dict, level: str, seconds_cap: float | None = None):
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


def _at_least(level: str, weakest: str) -> bool:
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
    A level counts only if its layers are in force, measured before any answer runs; a level that cannot
    start, or reaches fewer layers, gives way to the next allowed one, never to "none". Returns (report,
    level, [why each stronger level was not used]); GradingUnavailable when no allowed level works."""
    from autograder.engine import grading

    levels = allowed_levels(config)
    weakest = levels[-1]
    failures = []
    for level in levels:
        limits = _limits(config, level, seconds_cap)
        try:
            with new_sandbox() as sandbox:
                probe = sandbox.grade([], [("isolation", "pass\n")], limits=limits)["outcomes"][0]  # no answer yet
                measured = probe.details.get("isolation") if type(probe.details.get("isolation")) is dict else {}
                if probe.status != "passed":
                    failures.append(f"{level}: the sandbox did not start ({probe.feedback.rstrip('.')})")
                    continue
                if not _at_least(reached(measured), weakest):
                    failures.append(f"{level}: only {grading.describe_isolation(measured)} could be put in force")
                    continue
                report, _ = grading.grade_text(text, name, sandbox, config.get("seed", 0), limits, [source])
        except grading.NotebookError:
            raise
        except Exception as error:  # noqa: BLE001 - the sandbox could not start at this level
            failures.append(f"{level}: {type(error).__name__}: {error}")
            continue
        errors = [c for c in report.cells if c.mistake == "grader-error"]
        if report.isolation and not _at_least(reached(report.isolation), weakest):
            failures.append(f"{level}: the grading ran with {grading.describe_isolation(report.isolation)} only")
            continue
        if errors and level != weakest:
            failures.append(f"{level}: {errors[0].feedback}")
            continue
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


def most_hidden(visibilities) -> str:
    return max(visibilities, key=SHOWN_ORDER.index, default="visible")


def tests_of(report, source, visibility: dict, prefix: str = "", limits=None) -> list[dict]:
    """One Gradescope test per graded cell. A test the grader did not run because earlier tests ran out
    of time (the answers' process was restarted too often) says so, and names the loop."""
    from autograder.engine.notebooks import nbgrader_meta

    kinds = {nbgrader_meta(c)["grade_id"]: test_kind(c.source) for c in source.cells("test")}
    tests, slow = [], []
    for number, cell in enumerate(report.cells, 1):
        status = "passed" if cell.status == "passed" else "failed"
        output = cell.feedback if cell.status in ("passed", "failed") else f"{cell.status}: {cell.feedback}"
        if cell.status == "timeout":
            slow.append(cell.grade_id)
            if limits is not None:
                output += f" (the time limit is {limits.seconds_per_test:g} s a test here)"
        elif cell.mistake == "learner-stalled" and slow:
            seconds = f" ({limits.seconds_per_test:g} s each)" if limits is not None else ""
            output = (f"not run: {', '.join(slow)} ran out of time{seconds}, so the grader stopped running your "
                      "answers before this test. Is there an infinite loop, or work far larger than the exercise "
                      "needs, in a method those tests call? Fix that first: this test then runs too.")
        tests.append({"name": f"{prefix}{cell.grade_id}", "name_format": "text", "number": f"{prefix}{number}",
                      "score": float(cell.points), "max_score": float(cell.max_points), "status": status,
                      "output": output, "output_format": "text",
                      "visibility": visibility[kinds.get(cell.grade_id, "hidden")]})
    return tests


def zero_tests(source, visibility: dict, reason: str, prefix: str = "") -> list[dict]:
    """Every test of `source` at zero, each saying why (so Gradescope shows the right maximum)."""
    from autograder.engine import grading

    _, tests = grading.plan(source, None)
    kinds = {gid: test_kind(src) for gid, _, src in tests}
    return [{"name": f"{prefix}{gid}", "name_format": "text", "number": f"{prefix}{number}", "score": 0.0,
             "max_score": float(points), "status": "failed", "output": reason, "output_format": "text",
             "visibility": visibility[kinds[gid]]}
            for number, (gid, points, _) in enumerate(tests, 1)]


def summary_test(name: str, text: str, passed: bool, tests: list[dict]) -> dict:
    """An informational entry (no score): a notebook's score and the grader's notes, shown no earlier than
    the most hidden of the tests it describes."""
    return {"name": name, "name_format": "text", "status": "passed" if passed else "failed", "output": text,
            "output_format": "text", "visibility": most_hidden(t["visibility"] for t in tests)}


def results_json(score: float, output: str, tests: list[dict], visibility: dict, **extra) -> dict:
    return {"score": float(score), "output": output, "output_format": "text", "test_output_format": "text",
            "test_name_format": "text", "visibility": "visible", "stdout_visibility": visibility["stdout"],
            "tests": tests, **extra}


def failure(why: str, sources: list, visibility: dict, prefix_of=lambda s: "", **extra) -> dict:
    tests = [t for s in sources for t in zero_tests(s, visibility, why, prefix_of(s))] if len(sources) == 1 else []
    return results_json(0.0, why, tests, visibility, **extra)


def crashed(error: BaseException) -> dict:
    return results_json(0.0, "The grader failed on this submission (" + type(error).__name__ + "), so it scores 0 "
                        "for now. This is not your mistake: tell your instructor, who can see the details in the "
                        "autograder's log and rerun it.", [], {"stdout": "hidden"})


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".results-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


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


class Grading:
    """One submission's results as they are made: provisional (every test not yet run says so) until each
    notebook is graded, written after each step."""

    def __init__(self, where: dict, config: dict, started: float):
        self.where, self.config, self.started = where, config, started
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
        restarts = _limits(self.config, "full").restarts
        # A notebook whose every test loops costs its answers once and at most restarts + 1 test timeouts:
        # each test's time limit is cut (never raised) so that this worst case of every notebook left fits.
        units = sum(min(len(e["source"].cells("test")), restarts + 1) + 1
                    for e in self.entries[self.entries.index(entry):])
        cap = left / (units + 1)  # one more: starting the sandbox, and a margin
        text = notebooks.read_text(entry["path"], self.limit)  # the upload as it is (read once already, capped)
        try:
            done, value = _within(left, lambda: grade_with_fallback(text, f"{source.name}.ipynb", source,
                                                                    self.config, cap))
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
        entry["tests"] = tests_of(report, source, self.visibility, prefix, _limits(self.config, level, cap))
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
        return (f"Not graded: the autograder's time budget ({self.budget:g} s, kept below Gradescope's own limit "
                f"so that a result is always written) ran out {where}. Something in your answers is very slow or "
                "loops: run the notebook's tests in Jupyter to find it, then submit again.")


def results(layout_: dict, config: dict, started: float | None = None) -> dict:
    """The results.json of the submission under `layout_` (provisional ones written as it goes)."""
    return Grading(layout_, config, time.monotonic() if started is None else started).run()


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
    grading = None
    try:
        config = load_config()
        grading = Grading(where, config, start)
        data = grading.run()
    except Stopped as error:
        data = grading.stopped(str(error)) if grading is not None else crashed(error)
    except BaseException as error:  # noqa: BLE001 - a student sees a score and a sentence, never a traceback
        traceback.print_exc()  # run_autograder's stdout: the instructor's log
        data = crashed(error)
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

    from autograder.engine import grading

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
    for level in levels:
        with new_sandbox() as box:
            isolation = box.isolation(_limits(config, level))
        if _at_least(reached(isolation), levels[-1]):
            print(f"torch {torch.__version__}; isolation here: {grading.describe_isolation(isolation)}; grading "
                  f"at {level!r} (weakest allowed: {levels[-1]!r})")
            return 0
        problems.append(f"{level}: {grading.describe_isolation(isolation)}")
    print(f"torch {torch.__version__}; isolation here: {'; '.join(problems)}: below the weakest level allowed "
          f"({levels[-1]!r}), so every submission would say grading is unavailable", file=sys.stderr)
    return 1


# ------------------------------------------------------------------- the CLI: build, or try a zip locally

def command(args) -> int:
    """`python -m autograder gradescope`: write the zip, or (`--test SUBMISSION`) try one on a submission as
    Gradescope runs it. Exit 2 for bad input."""
    from autograder.engine.notebooks import MAX_SUBMISSION_MB

    if not args.test and not (args.assignment or args.all):
        print("error: --assignment or --all (which notebooks the autograder grades), or --test SUBMISSION",
              file=sys.stderr)
        return 2
    if args.test and not Path(args.test).exists():
        print(f"error: {args.test}: no such file or folder", file=sys.stderr)
        return 2
    if args.zip and not args.test:
        print("error: --zip goes with --test SUBMISSION", file=sys.stderr)
        return 2
    built = None
    if not args.zip:
        if not (args.assignment or args.all):
            print("error: --test needs the zip to try (--zip Z) or the notebooks to build it for (--assignment or "
                  "--all)", file=sys.stderr)
            return 2
        limits = {"seconds_per_test": args.timeout, "memory_mb": args.memory_mb}
        try:
            visibility = parse_visibility(args.visibility)
            output = args.output or (Path(tempfile.mkdtemp(prefix="gradescope-zip-")) / "autograder.zip"
                                     if args.test else None)
            built = build(Path(output) if output else None, None if args.all else [args.assignment], visibility,
                          {k: v for k, v in limits.items() if v}, args.seed, args.isolation, args.weakest_isolation,
                          args.budget, args.max_submission_mb)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if not args.test:
            shown = ", ".join(f"{kind} {value}" for kind, value in visibility.items())
            print(f"wrote {built} (upload it as the Gradescope assignment's autograder; visibility: {shown}; "
                  f"isolation: {args.isolation or 'full'} down to {args.weakest_isolation or DEFAULT_WEAKEST} at "
                  f"most; time budget {args.budget or DEFAULT_BUDGET_SECONDS:g} s; submissions up to "
                  f"{args.max_submission_mb or MAX_SUBMISSION_MB:g} MB)")
            return 0
    zip_path = Path(args.zip) if args.zip else built
    try:
        data, log = try_zip(zip_path, Path(args.test))
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(data, indent=1))
    else:
        print(format_results(data))
    return 0


def try_zip(zip_path: Path, submission: Path) -> tuple[dict, str]:
    """Gradescope's run of `zip_path` on `submission` (a file or a folder of them), in a temporary /autograder:
    the zip unpacked into source/ (modes kept), the submission copied into submission/, run_autograder run
    with this environment's Python standing for the one setup.sh installs. (results.json, its log)."""
    import shutil
    import subprocess

    with zipfile.ZipFile(zip_path) as archive:
        names = set(archive.namelist())
        if not {"setup.sh", "run_autograder", CONFIG} <= names:
            raise ValueError(f"{zip_path}: not a Gradescope autograder zip of this course (no run_autograder, "
                             f"setup.sh and {CONFIG})")
        with tempfile.TemporaryDirectory(prefix="gradescope-test-") as tmp:
            root = Path(tmp)
            source = root / "autograder" / "source"
            source.mkdir(parents=True)
            archive.extractall(source)
            for info in archive.infolist():  # zipfile drops the modes Gradescope's unzip keeps
                os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777 or 0o644)
            target = root / "autograder" / "submission"
            if submission.is_dir():
                shutil.copytree(submission, target)
            else:
                target.mkdir(parents=True)
                shutil.copy2(submission, target / submission.name)
            config = json.loads((source / CONFIG).read_text())
            env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "AUTOGRADER_HOME"}}
            env.update({ROOT_VARIABLE: str(root), "AUTOGRADER_VENV": sys.prefix})
            run = subprocess.run(["bash", str(source / "run_autograder")], cwd=root / "autograder", env=env,
                                 capture_output=True, text=True,
                                 timeout=float(config.get("budget_seconds", DEFAULT_BUDGET_SECONDS)) + 120)
            return json.loads((root / "autograder" / "results" / "results.json").read_text()), run.stdout


def format_results(data: dict) -> str:
    """results.json as the instructor sees it on Gradescope (every test), then as a student does now and once
    the grades are published."""
    tests = data.get("tests", [])
    scored = [t for t in tests if "score" in t]
    total = sum(t.get("max_score", 0) for t in scored)
    lines = [f"results.json: score {data['score']:g} / {total:g}  (the instructor's view: every test)", ""]
    width = max((len(t["name"]) for t in tests), default=10)
    for t in tests:
        points = f"{t['score']:g}/{t['max_score']:g}" if "score" in t else "-"
        lines.append(f"  {t['status'].upper():<7} {t['name']:<{width}}  {points:<7} [{t['visibility']}]")
    for moment, shown in (("now", {"visible"}), ("after the due date", {"visible", "after_due_date"}),
                          ("once the grades are published", {"visible", "after_due_date", "after_published"})):
        lines += ["", f"What a student sees {moment}:", *("  " + line for line in data.get("output", "").splitlines())]
        seen = [t for t in tests if t.get("visibility", "visible") in shown]
        if len(seen) == len(tests):
            lines.append(f"  score: {data['score']:g} / {total:g}")
        else:
            lines.append(f"  score: not shown ({len(tests) - len(seen)} of {len(tests)} tests are not shown yet)")
        for t in seen:
            points = f" {t['score']:g}/{t['max_score']:g}" if "score" in t else ""
            lines.append(f"  {t['status'].upper():<7} {t['name']}{points}")
            lines += ["          " + line for line in t.get("output", "").splitlines()[:6] if t["status"] != "passed"
                      or "score" not in t]
    return "\n".join(lines)


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
