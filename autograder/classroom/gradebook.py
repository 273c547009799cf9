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


# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...), +cmd|..., @SUM(...)),
# and some strip a leading tab or CR first: OWASP's CSV injection advice is to start such a cell with a quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell) -> str:
    """`cell` as a CSV cell no spreadsheet runs: text starting like a formula gets a leading `'`; numbers (a
    negative score too) stay numbers."""
    text = "" if cell is None else str(cell)
    if text.startswith(FORMULA_STARTS):
        try:
            float(text)
            return text
        except ValueError:
            return "'" + text
    return text


def write_safe_csv(path: Path, rows) -> None:
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:  # no BOM: the LMSs' own exports have none
        csv.writer(f).writerows([[spreadsheet_safe(c) for c in row] for row in rows])


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

    def record(self, student: str, assignment: str, notebook: str, autograded_text: str,
               late_penalty: float = 0.0) -> None:
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
        with Gradebook(self.db_url) as gb:  # nbgrader's own column: its CSV export shows raw_score, penalty, score
            graded = gb.find_submission_notebook(notebook, assignment, student)
            if (graded.late_submission_penalty or 0.0) != late_penalty:
                graded.late_submission_penalty = late_penalty
                gb.db.commit()

    def scores(self) -> list[dict]:
        from nbgrader.api import Gradebook

        rows = []
        with Gradebook(self.db_url) as gb:
            for assignment in gb.assignments:
                for sub in gb.assignment_submissions(assignment.name):
                    rows.append({"student": sub.student_id, "assignment": assignment.name,  # after any late penalty
                                 "score": max(0.0, sub.score - (sub.late_submission_penalty or 0.0)),
                                 "max_score": sub.max_score})
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
    import csv

    with open(path, newline="", encoding="utf-8") as f:  # nbgrader's plugin writes cells as they are
        rows = list(csv.reader(f))
    write_safe_csv(path, rows)
    return path


def grade_table(reports: list[dict], width: int | None = None) -> str:
    """Students by notebooks (a late one marked *), with totals; at most `width` columns wide (pandas wraps
    the notebooks into blocks), or one block when width is None."""
    import pandas as pd

    if not reports:
        return "(no graded submissions)"
    frame = pd.DataFrame([{"student": r["student"], "notebook": r["notebook"].removesuffix(".ipynb"),
                           "score": f"{r['score']:g}/{r['max_score']:g}"
                                    + ("*" if r.get("lateness", {}).get("late") else "")} for r in reports])
    table = frame.pivot(index="student", columns="notebook", values="score").fillna("-")
    totals = pd.DataFrame(reports).groupby("student")[["score", "max_score"]].sum()
    table.insert(0, "total", [f"{totals.loc[s, 'score']:g}/{totals.loc[s, 'max_score']:g}" for s in table.index])
    note = "\n* late (the score after the late policy)" if "*" in "".join(frame["score"]) else ""
    return table.to_string(line_width=width) + note
