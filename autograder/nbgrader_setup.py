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
