"""The Gradescope autograder zip (`python -m autograder gradescope`), and trying one locally as Gradescope runs it.

The zip holds `setup.sh` (the pinned environment: Python 3.11, CPU PyTorch, the grader's dependencies),
`run_autograder`, this package, a grading copy of each chosen notebook (`grading/<assignment>/`: the
instructor's test cells, hidden tests included, with the released, empty answer cells: no reference answer
travels), `grading/course.json` (every course notebook's cell ids, so another assignment's notebook is named
as such), the project's `pyproject.toml`, `requirements.txt` (the hashed lock requirements/grader.lock) and
`gradescope.json` (what the zip grades, with which limits, isolation, time budget and size cap, and who sees
which test when).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import zipfile
from pathlib import Path

from autograder import paths
from autograder.classroom.gradescope.settings import (CONFIG, COURSE_INDEX, DEFAULT_BUDGET_SECONDS,
                                                      DEFAULT_VISIBILITY, DEFAULT_WEAKEST,
                                                      GRADESCOPE_LONGEST_TIMEOUT_SECONDS, GRADESCOPE_TIMEOUT_SECONDS,
                                                      GRADING_DIR, LEVELS, PACKAGE_SKIP, ROOT_VARIABLE,
                                                      parse_visibility)


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
    from autograder.classroom.gradescope import scripts

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
        package = Path(__file__).resolve().parents[2]  # autograder/
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
    except zipfile.BadZipFile as error:
        print(f"error: {zip_path}: not an autograder zip ({error})", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
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
            # Gradescope's /autograder is traversable by anyone: so is this stand-in (a root grader's learner runs
            # as an unallocated uid, which could not reach the package below a 0700 folder to import lazily).
            os.chmod(root, 0o755)
            source = root / "autograder" / "source"
            source.mkdir(parents=True)
            archive.extractall(source)
            for info in archive.infolist():  # zipfile drops the modes Gradescope's unzip keeps
                os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777 or 0o644)
            said = reuse_kernel_build(source)
            if said:
                print(said, file=sys.stderr)
            target = root / "autograder" / "submission"
            if submission.is_dir():
                shutil.copytree(submission, target, symlinks=True)  # a link stays a link: never read
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


def reuse_kernel_build(source: Path) -> str:
    """Notebook 16's C++ kernel for a tried zip unpacked in `source`: Gradescope builds it in setup.sh, which
    --test does not run, so the grader would compile it on every try (half a minute to two). The build of this
    checkout is copied in instead, when the zip's kernel source is this checkout's (the build's folder name
    starts with the source's digest); built here first, once, when there is none. Returns what it did, or ""."""
    import hashlib
    import shutil
    import subprocess

    # autograder/kernels' layout (read as files: the classroom wing does not import the kernels wing)
    here = Path(__file__).resolve().parents[2] / "kernels"
    name, library = "rms_norm.cpp", "course_kernels.so"
    kernel = source / "autograder" / "kernels" / name
    if not kernel.is_file():
        return ""
    digest = hashlib.sha256(kernel.read_bytes()).hexdigest()[:12]
    local = here / "build"
    builds = sorted(local.glob(f"{digest}-*/{library}")) if local.is_dir() else []
    said = ""
    if not builds:
        if kernel.read_bytes() != (here / name).read_bytes():
            return ("notebook 16's C++ kernel: the zip's source differs from this checkout's, so the grader builds it "
                    "during this try (half a minute to two)")
        print("notebook 16's C++ kernel is not built in this checkout: building it once (about a minute; later "
              "tries reuse it)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "autograder.kernels"], check=False, cwd=paths.ROOT)
        builds = sorted(local.glob(f"{digest}-*/{library}"))
        said = "notebook 16's C++ kernel: built in this checkout"
    for library in builds:
        shutil.copytree(library.parent, source / "autograder" / "kernels" / "build" / library.parent.name,
                        dirs_exist_ok=True)
    return (said or f"notebook 16's C++ kernel: reusing this checkout's build ({builds[0].parent.name})") \
        if builds else "notebook 16's C++ kernel could not be built here: the grader tries during this run"


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
