"""Release: regenerate course/ from solutions/ with nbgrader, refusing if a solution fails its own tests.

Like otter-grader's assign step, the instructor's reference answers are graded first, in the same
sandbox students are graded in; a course whose own solutions fail never ships.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder.engine import grading, notebooks
from autograder import paths
from autograder.classroom.nbgrader_setup import config
from autograder.engine.sandbox import Runner


class ReleaseRefused(RuntimeError):
    pass


def verify_solutions(sources, runner: Runner, seed: int = 0, progress=None) -> list[grading.Report]:
    """Each source's reference answers graded through `runner` (the sandbox); ReleaseRefused at the first that fails.
    `progress`, if given, is called with a line per notebook: before it is graded and with its score."""
    import time

    reports = []
    for number, source in enumerate(sources, 1):
        if progress:
            progress(f"checking {source.assignment} ({number}/{len(sources)}): its reference answers, graded")
        start = time.monotonic()
        report = grading.reference_report(source, runner, seed=seed)
        failing = [c for c in report.cells if c.status != "passed"]
        if failing or not report.cells:
            names = "; ".join(f"{c.grade_id} ({c.status}: {c.feedback[:300]})" for c in failing)
            raise ReleaseRefused(f"{source.path.relative_to(paths.ROOT)}: the reference solution fails its own "
                                 f"tests: {names or 'no test cells'}. Nothing was released.")
        if progress:
            progress(f"checked  {source.assignment}: reference {report.score:g}/{report.max_score:g} "
                     f"in {time.monotonic() - start:.1f} s")
        reports.append(report)
    return reports


def generate(assignments: list[str], release_dir: Path | None = None, progress=None) -> None:
    """nbgrader generate_assignment for each assignment: solutions/<a>/ -> course/<a>/ (or release_dir).
    `progress`, if given, is called with a line per notebook written."""
    from nbgrader.apps import NbGraderAPI

    paths.grading_home().mkdir(parents=True, exist_ok=True)
    c = config()
    if release_dir is not None:
        c.CourseDirectory.release_directory = str(release_dir)
    api = NbGraderAPI(config=c)
    for number, assignment in enumerate(assignments, 1):
        result = api.generate_assignment(assignment, force=True, create=True)
        if not result["success"]:
            raise ReleaseRefused(f"nbgrader could not generate {assignment}:\n{result.get('log', '')[-3000:]}")
        if progress:
            progress(f"released {assignment} ({number}/{len(assignments)})")


def remove_retired(course: Path, assignments: set[str]) -> list[str]:
    """Delete released notebooks whose source is gone (a notebook split or renamed): course/ mirrors
    solutions/. Only folders that hold a notebook named after the folder are touched."""
    import shutil

    retired = [d for d in sorted(course.iterdir()) if d.is_dir() and d.name not in assignments
               and (d / f"{d.name}.ipynb").exists()]
    for folder in retired:
        shutil.rmtree(folder)
    return [d.name for d in retired]


def problems_in_release(course: Path | None = None) -> list[str]:
    """What must never be in course/: solutions, hidden tests, markers, outputs."""
    course = course or paths.COURSE
    found = []
    for path in sorted(course.glob("*/*.ipynb")):
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            text = "".join(cell.get("source", ""))
            if "### BEGIN" in text or "### END" in text:
                found.append(f"{path.name}: a solution or hidden-test marker")
            if cell.get("outputs") or cell.get("execution_count"):
                found.append(f"{path.name}: a cell with outputs")
    return found


def release(runner: Runner, check: bool = True, progress=None) -> list[grading.Report]:
    """Check the references (unless `check` is false), then write course/. `progress`, if given, is called
    with a line per notebook checked and per notebook written."""
    sources = notebooks.sources()
    reports = verify_solutions(sources, runner, progress=progress) if check else []
    generate([s.assignment for s in sources], progress=progress)
    remove_retired(paths.COURSE, {s.assignment for s in sources})
    leftovers = problems_in_release()
    if leftovers:
        raise ReleaseRefused("the release contains what students must not see: " + "; ".join(leftovers))
    return reports
