"""nbgrader's configuration for this course: its folders mapped onto solutions/ and course/.

nbgrader calls the instructor sources "source" and the student version "release"; here they are
`solutions/` and `course/`. Grading state (gradebook, submissions, autograded copies, feedback,
exchange) lives under one git-ignored folder, `.grading/` (or $AUTOGRADER_HOME).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from traitlets.config import Config

from autograder import paths

# nbgrader runs the `alembic` command of its own environment: make it findable without an activated venv.
_bin = str(Path(sys.executable).parent)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")

CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


def configure(c: Config, db_url: str | None = None) -> Config:
    home = paths.grading_home()
    # formgrader and the assignment list fail on a fresh clone (or Binder) without these folders.
    (home / "exchange").mkdir(parents=True, exist_ok=True)
    c.CourseDirectory.root = str(paths.ROOT)
    c.CourseDirectory.source_directory = paths.SOLUTIONS.name
    c.CourseDirectory.release_directory = paths.COURSE.name
    c.CourseDirectory.submitted_directory = str(home / "submitted")
    c.CourseDirectory.autograded_directory = str(home / "autograded")
    c.CourseDirectory.feedback_directory = str(home / "feedback")
    c.CourseDirectory.db_url = db_url or f"sqlite:///{home / 'gradebook.db'}"
    c.CourseDirectory.course_id = "custom-autograd-functions"
    c.Exchange.root = str(home / "exchange")
    c.ClearSolutions.code_stub = {"python": CODE_STUB}
    # nbgrader's feedback HTML includes hidden test source by default: never show it to students.
    c.GenerateFeedback.preprocessors = [
        "nbgrader.preprocessors.GetGrades",
        "nbgrader.preprocessors.ClearHiddenTests",
        "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    ]
    return c


def config(db_url: str | None = None) -> Config:
    return configure(Config(), db_url)


def alembic_head() -> str:
    """The gradebook schema version nbgrader stamps on a new gradebook. nbgrader finds it by running the
    `alembic heads` command (a new interpreter: ~6 s on a busy 2-core machine); alembic's own Python API
    reads the same migration scripts in milliseconds."""
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    alembic_config = AlembicConfig()
    alembic_config.set_main_option("script_location", ALEMBIC_DIR)
    heads = ScriptDirectory.from_config(alembic_config).get_heads()
    if len(heads) != 1:
        raise RuntimeError(f"nbgrader's gradebook migrations have {len(heads)} heads, expected one")
    return heads[0]


def use_in_process_alembic() -> None:
    """Make nbgrader's Gradebook (in this process) stamp new gradebooks without the subprocess."""
    import nbgrader.api

    nbgrader.api.get_alembic_version = alembic_head



_ENGINES: dict = {}  # (database URL, options) -> the one SQLAlchemy engine this process opens on it


def share_engines() -> None:
    """Make nbgrader's Gradebooks (in this process) share one SQLAlchemy engine per database. nbgrader opens a new
    engine for every Gradebook (three per submission recorded), and SQLAlchemy's cache of compiled statements lives
    on the engine: every query was compiled anew, half of a record's 50 ms. Gradebook.close() still returns its
    connections (Engine.dispose keeps the engine, and its cache, usable)."""
    import nbgrader.api
    import sqlalchemy

    if getattr(nbgrader.api.create_engine, "shared", False):
        return

    def create_engine(url, **options):
        key = (str(url), tuple(sorted(options.items())))
        if key not in _ENGINES:
            _ENGINES[key] = sqlalchemy.create_engine(url, **options)
        return _ENGINES[key]

    create_engine.shared = True
    nbgrader.api.create_engine = create_engine
