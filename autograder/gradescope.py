"""Grading on Gradescope: the autograder zip (`python -m autograder gradescope`) and what its
`run_autograder` runs for each submission (`python -m autograder.gradescope run`).

The zip holds `setup.sh` (the pinned environment: Python 3.11, CPU PyTorch, the grader's dependencies),
`run_autograder`, this package, the instructor's sources of the chosen notebooks (`solutions/`), the
project's `pyproject.toml`, a `requirements.txt` of its pins and `gradescope.json` (what the zip grades, with
which limits, and who sees which test when).

Gradescope's layout (https://gradescope-autograders.readthedocs.io/en/latest/specs/):

    /autograder/source        the zip, unpacked           /autograder/submission   what the student uploaded
    /autograder/results/results.json   what we write      /autograder/run_autograder   run per submission

`AUTOGRADER_ROOT` (default `/`) prefixes those paths, so the whole flow runs in a test without root.

results.json: one test per graded cell (`name`, `score`, `max_score`, `status`, `output`, `visibility`), a
top-level `score` and `output`. Whatever happens (no notebook, not a notebook of this course, no answers,
a grader that crashes) a valid results.json with score 0 says why: never a traceback or an error page.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

from autograder import paths

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
# Test kinds: a graded cell whose hidden block is empty is a "visible" check (students run it in their
# notebook anyway); a cell with a hidden block is "hidden". "stdout" is run_autograder's own output.
DEFAULT_VISIBILITY = {"visible": "visible", "hidden": "after_published", "stdout": "hidden"}
CONFIG = "gradescope.json"
ROOT_VARIABLE = "AUTOGRADER_ROOT"
PACKAGE_SKIP = {"__pycache__"}
WEAKER = {"full": "no-namespaces", "no-namespaces": "none"}



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
    """The project's pinned dependencies, one a line (torch is installed first, from PyTorch's CPU index)."""
    import tomllib

    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    return "\n".join(project["dependencies"]) + "\n"


def torch_pin() -> str:
    return next(line for line in requirements().splitlines() if re.match(r"torch\s*==", line)).replace(" ", "")


def build(output: Path | None = None, assignments: list[str] | None = None, visibility: dict | None = None,
          limits: dict | None = None, seed: int | None = None, isolation: str | None = None) -> Path:
    """Write the Gradescope autograder zip for `assignments` (None: every notebook of the course)."""
    from autograder import grading, gradescope_scripts as scripts, notebooks

    sources = notebooks.sources()
    known = sorted({s.assignment for s in sources})
    chosen = known if not assignments else list(dict.fromkeys(assignments))
    unknown = [a for a in chosen if a not in known]
    if unknown:
        raise ValueError(f"no such assignment: {', '.join(unknown)} (course assignments: {', '.join(known)})")
    name = chosen[0] if len(chosen) == 1 else "all"
    output = Path(output or paths.grading_home() / f"gradescope-{name}.zip")
    output.parent.mkdir(parents=True, exist_ok=True)
    seed = grading.base_seed() if seed is None else int(seed)  # the course's: Gradescope draws the same inputs
    config = {"assignments": chosen, "visibility": dict(visibility or DEFAULT_VISIBILITY), "seed": seed,
              "limits": dict(limits or {})}
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
        package = Path(__file__).resolve().parent
        for path in sorted(package.rglob("*")):
            if path.is_file() and not PACKAGE_SKIP & set(path.relative_to(package).parts) \
                    and path.suffix not in {".pyc", ".pyo"}:
                archive.write(path, f"autograder/{path.relative_to(package).as_posix()}")
        for assignment in chosen:
            for path in sorted((paths.SOLUTIONS / assignment).rglob("*")):
                if path.is_file() and ".ipynb_checkpoints" not in path.parts:
                    archive.write(path, f"solutions/{path.relative_to(paths.SOLUTIONS).as_posix()}")
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
    return config


def test_kind(cell_source: str) -> str:
    from autograder.notebooks import HIDDEN

    return "hidden" if HIDDEN.search(cell_source) else "visible"


def candidates(submission: Path) -> list[Path]:
    """Every notebook the student uploaded, whatever its name or folder."""
    if not submission.is_dir():
        return []
    return sorted(p for p in submission.rglob("*.ipynb")
                  if p.is_file() and not {".ipynb_checkpoints", "__MACOSX"} & set(p.relative_to(submission).parts))


def choose(files: list[Path], sources: list, top: Path) -> tuple[list[tuple[Path, object, object]], list[str]]:
    """[(file, notebook, source)] one per assignment (the file sharing most cells with it), and a reason
    for each file that is not a notebook of this course."""
    from autograder import notebooks
    from autograder.notebooks import NotebookError

    best: dict[str, tuple[int, Path, object, object]] = {}
    rejected = []
    for path in files:
        try:
            nb = notebooks.read(path)
            source = notebooks.match_source(nb, path.name, sources)
        except NotebookError as error:
            rejected.append(str(error).replace(str(top) + os.sep, ""))
            continue
        overlap = len(notebooks.ids_in(nb) & (set(source.grade_ids("answer")) | set(source.grade_ids("test"))))
        if source.assignment not in best or overlap > best[source.assignment][0]:
            best[source.assignment] = (overlap, path, nb, source)
    chosen = [(p, nb, s) for _, p, nb, s in (best[a] for a in sorted(best))]
    return chosen, rejected


def _limits(config: dict, level: str):
    from autograder.sandbox import Limits

    limits = Limits(isolation=level)
    for key, value in config.get("limits", {}).items():
        if key in Limits.__dataclass_fields__ and key != "isolation" and value is not None:
            setattr(limits, key, type(getattr(limits, key))(value))
    return limits


def grade_with_fallback(text: str, name: str, source, config: dict):
    """Grade at the strongest isolation this machine allows: "full" degrades itself where user namespaces
    are refused; a level whose sandbox fails to start gives way to the next weaker one."""
    from autograder import grading

    level = os.environ.get("AUTOGRADER_ISOLATION") or config.get("isolation") or "full"
    failures = []
    while True:
        try:
            with grading.new_sandbox() as sandbox:
                report, _ = grading.grade_text(text, name, sandbox, config.get("seed", 0),
                                               _limits(config, level), [source])
            errors = [c for c in report.cells if c.mistake == "grader-error"]
            if not errors or level not in WEAKER:
                return report, level, failures
            failures.append(f"{level}: {errors[0].feedback}")
        except grading.NotebookError:
            raise
        except Exception as error:  # noqa: BLE001 - the sandbox could not start at this level
            if level not in WEAKER:
                raise
            failures.append(f"{level}: {type(error).__name__}: {error}")
        level = WEAKER[level]


def isolation_sentence(isolation: dict, level: str, failures: list[str]) -> str:
    from autograder import grading

    layers = grading.describe_isolation(isolation) if isolation else "not measured"
    if isolation.get("strong"):
        return f"Isolation: full ({layers})."
    text = (f"Isolation: {layers} (level {level!r}). Not every layer was in force here, so the "
            "grader ran with the isolation it can have: the verdicts are computed outside your code's process "
            "as always.")
    if failures:
        text += " Stronger levels failed here: " + "; ".join(failures)
    return text


def tests_of(report, source, visibility: dict, prefix: str = "") -> list[dict]:
    from autograder.notebooks import nbgrader_meta

    kinds = {nbgrader_meta(c)["grade_id"]: test_kind(c.source) for c in source.cells("test")}
    tests = []
    for number, cell in enumerate(report.cells, 1):
        status = "passed" if cell.status == "passed" else "failed"
        output = cell.feedback if cell.status in ("passed", "failed") else f"{cell.status}: {cell.feedback}"
        tests.append({"name": f"{prefix}{cell.grade_id}", "number": f"{prefix}{number}", "score": float(cell.points),
                      "max_score": float(cell.max_points), "status": status, "output": output,
                      "visibility": visibility[kinds.get(cell.grade_id, "hidden")]})
    return tests


def zero_tests(source, visibility: dict, reason: str, prefix: str = "") -> list[dict]:
    """Every test of `source` at zero, each saying why (so Gradescope shows the right maximum)."""
    from autograder import grading

    _, tests = grading.plan(source, None)
    kinds = {gid: test_kind(src) for gid, _, src in tests}
    return [{"name": f"{prefix}{gid}", "number": f"{prefix}{number}", "score": 0.0, "max_score": float(points),
             "status": "failed", "output": reason, "visibility": visibility[kinds[gid]]}
            for number, (gid, points, _) in enumerate(tests, 1)]


def results(layout_: dict, config: dict) -> dict:
    """The results.json of the submission under `layout_`; raises nothing it can explain."""
    from autograder import notebooks

    visibility = config["visibility"]
    wanted = config["assignments"]
    sources = [s for s in notebooks.sources() if not wanted or s.assignment in wanted]
    prefix_of = (lambda s: f"{s.assignment}: ") if len(sources) > 1 else (lambda s: "")
    files = candidates(layout_["submission"])
    chosen, rejected = choose(files, sources, layout_["submission"])
    course = ", ".join(f"{s.name}.ipynb" for s in sources)
    if not chosen:
        if not files:
            why = f"No notebook (.ipynb) was submitted. Upload your copy of {course}."
        else:
            why = ("None of the submitted files is a notebook of this course: " + "; ".join(rejected)
                   + f". Upload your copy of {course}.")
        return failure(why, sources, visibility, prefix_of)
    tests, notes, score = [], [], 0.0
    levels = []
    for path, nb, source in chosen:
        prefix = prefix_of(source)
        shown = path.relative_to(layout_["submission"]).as_posix()
        if not notebooks.submitted_answers(nb):
            tests += zero_tests(source, visibility, f"{shown} has no answer cells (were they deleted, or their "
                                "metadata removed?): start again from the course notebook and copy your answers "
                                "into its answer cells.", prefix)
            notes.append(f"{shown}: no answer cells, nothing graded.")
            continue
        report, level, failures = grade_with_fallback(path.read_text(encoding="utf-8"), f"{source.name}.ipynb",
                                                      source, config)
        tests += tests_of(report, source, visibility, prefix)
        score += report.score
        notes.append(f"{shown}: graded as {source.name}.ipynb, {report.score:g} / {report.max_score:g}.")
        notes += [n for n in report.notes if not n.startswith("graded with weaker isolation")]
        levels.append(isolation_sentence(report.isolation, level, failures))
    for reason in rejected:
        notes.append(f"Not graded: {reason}")
    for sentence in dict.fromkeys(levels):
        notes.append(sentence)
    return {"score": score, "output": "\n".join(notes), "visibility": "visible",
            "stdout_visibility": visibility["stdout"], "tests": tests}


def failure(why: str, sources: list, visibility: dict, prefix_of=lambda s: "") -> dict:
    tests = [t for s in sources for t in zero_tests(s, visibility, why, prefix_of(s))] if len(sources) == 1 else []
    return {"score": 0.0, "output": why, "visibility": "visible", "stdout_visibility": visibility["stdout"],
            "tests": tests}


def crashed(error: BaseException) -> dict:
    return {"score": 0.0, "output": ("The grader failed on this submission (" + type(error).__name__ + "), so "
                                     "it scores 0 for now. This is not your mistake: tell your instructor, who "
                                     "can see the details in the autograder's log and rerun it."),
            "visibility": "visible", "stdout_visibility": "hidden", "tests": []}


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".results-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def run(root: str | Path | None = None) -> dict:
    """Grade the submission under `root` and write its results.json (always)."""
    where = layout(root)
    start = time.monotonic()
    try:
        config = load_config()
        data = results(where, config)
    except BaseException as error:  # noqa: BLE001 - a student sees a score and a sentence, never a traceback
        traceback.print_exc()  # run_autograder's stdout: the instructor's log
        data = crashed(error)
    data["execution_time"] = round(time.monotonic() - start, 1)
    write(where["results"], data)
    print(f"score {data['score']:g}; {len(data['tests'])} tests; {where['results']}")
    print(data["output"])
    return data


def check() -> int:
    """What setup.sh runs last: the pinned PyTorch imports, and the isolation this machine gives."""
    import torch

    from autograder import grading
    from autograder.sandbox import Limits

    expected = torch_pin().split("==")[1]
    if torch.__version__.split("+")[0] != expected:
        print(f"torch {torch.__version__} is installed, the course needs {expected}", file=sys.stderr)
        return 1
    with grading.new_sandbox() as box:
        isolation = box.isolation(Limits())
    print(f"torch {torch.__version__}; isolation here: {grading.describe_isolation(isolation)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.gradescope")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="grade /autograder/submission into /autograder/results/results.json")
    p.add_argument("--root", help=f"prefix of /autograder (default: ${ROOT_VARIABLE} or /)")
    sub.add_parser("check", help="the environment imports and grades")
    args = parser.parse_args(argv)
    if args.command == "check":
        return check()
    run(args.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
