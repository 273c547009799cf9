"""The class's gradebook: nbgrader's, written by one writer, and what is read out of it (feedback, grades CSV)."""

from __future__ import annotations

import warnings
from pathlib import Path

import nbformat

from autograder.classroom.submissions import autograded_dir, check_assignment, home
from autograder.engine import notebooks
from autograder.engine.notebooks import Source


# nbgrader's own session handling emits SQLAlchemy warnings that are not ours to fix.
warnings.filterwarnings("ignore", module="nbgrader.api")
warnings.filterwarnings("ignore", message=".*not in session.*")


class GradebookWriter:
    """The single writer: nbgrader's own SaveAutoGrades on our autograded notebooks, so the gradebook
    holds exactly the scores nbgrader's autograde would compute from those outputs."""

    def __init__(self, db_url: str | None = None):
        from autograder.classroom.nbgrader_setup import config, share_engines, use_in_process_alembic

        use_in_process_alembic()
        share_engines()
        self.config = config(db_url)
        self.db_url = self.config.CourseDirectory.db_url

    def ensure_assignments(self, sources: list[Source]) -> None:
        """Create assignments, notebooks and grade cells (what generate_assignment stores), if absent."""
        from nbgrader.api import Gradebook
        from nbgrader.preprocessors import SaveCells

        with Gradebook(self.db_url) as gb:
            known = {a.name: {n.name for n in a.notebooks} for a in gb.assignments}
        for source in sources:
            if source.name in known.get(source.assignment, set()):
                continue
            with Gradebook(self.db_url) as gb:
                gb.update_or_create_assignment(source.assignment)
            resources = {"nbgrader": {"db_url": self.db_url, "assignment": source.assignment,
                                      "notebook": source.name}}
            SaveCells(config=self.config).preprocess(nbformat.from_dict(source.notebook), resources)

    def record(self, student: str, assignment: str, notebook: str, autograded_text: str) -> None:
        from nbgrader.api import Gradebook
        from nbgrader.preprocessors import SaveAutoGrades

        with Gradebook(self.db_url) as gb:
            gb.update_or_create_student(student)
            try:
                gb.find_submission(assignment, student)
            except Exception:  # noqa: BLE001 - nbgrader raises MissingEntry
                gb.add_submission(assignment, student)
        resources = {"nbgrader": {"db_url": self.db_url, "assignment": assignment, "notebook": notebook,
                                  "student": student}}
        SaveAutoGrades(config=self.config).preprocess(nbformat.reads(autograded_text, as_version=4), resources)

    def scores(self) -> list[dict]:
        from nbgrader.api import Gradebook

        rows = []
        with Gradebook(self.db_url) as gb:
            for assignment in gb.assignments:
                for sub in gb.assignment_submissions(assignment.name):
                    rows.append({"student": sub.student_id, "assignment": assignment.name,
                                 "score": sub.score, "max_score": sub.max_score})
        return rows


def feedback(db_url: str | None = None, progress=None) -> list[Path]:
    """nbgrader's feedback HTML for every autograded submission (hidden tests removed). `progress`, if given,
    is called with a line per assignment, before its pages are written."""
    from nbgrader.apps import NbGraderAPI

    from autograder.classroom.nbgrader_setup import config

    api = NbGraderAPI(config=config(db_url))
    written = []
    assignments = sorted({p.name for p in autograded_dir().glob("*/*") if p.is_dir()})
    for number, assignment in enumerate(assignments, 1):
        if progress:
            students = sorted(p.parent.name for p in autograded_dir().glob(f"*/{assignment}") if p.is_dir())
            progress(f"feedback {assignment} ({number}/{len(assignments)}): {len(students)} students "
                     f"({', '.join(students)})")
        result = api.generate_feedback(assignment, force=True)
        if not result["success"]:
            raise RuntimeError(f"feedback for {assignment} failed:\n{result.get('log', '')[-2000:]}")
    written = sorted((home() / "feedback").glob("*/*/*.html"))
    return written


def export_csv(path: Path | None = None, db_url: str | None = None, assignments: list[str] | None = None) -> Path:
    """nbgrader's grades CSV (one row per student and assignment), of `assignments` only if given (each
    must be one of the course's: UnknownAssignment otherwise)."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    from autograder.classroom.nbgrader_setup import config

    sources = notebooks.sources()
    for assignment in assignments or []:
        check_assignment(assignment, sources)
    path = Path(path or home() / "grades.csv")
    path.parent.mkdir(parents=True, exist_ok=True)
    plugin = CsvExportPlugin(config=config(db_url))
    plugin.to = str(path)
    plugin.assignment = list(assignments or [])
    with Gradebook(config(db_url).CourseDirectory.db_url) as gb:
        plugin.export(gb)
    return path

