"""The grading home and the submissions in it: who handed in what, and whether its grade is up to date.

Folders follow nbgrader's layout under the grading home (default `.grading/`):

    submitted/<student>/<assignment>/<notebook>.ipynb     what students handed in (never modified)
    autograded/<student>/<assignment>/<notebook>.ipynb    nbgrader-style graded copy (feedback reads it)
    autograded/<student>/<assignment>/<notebook>.grade.json  our report: scores, feedback, sha256
    feedback/<student>/<assignment>/<notebook>.html       nbgrader's feedback, hidden tests removed
    gradebook.db                                          nbgrader's gradebook (or any SQLAlchemy URL)
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.engine import notebooks
from autograder import paths
from autograder.engine.notebooks import NotebookError, Source


@dataclass
class HandIn:
    """A student's hand-in on disk, as the class's steps find it (discover, collect): whose, for which notebook,
    where. Once read and parsed for grading it becomes a notebooks.Submission."""
    student: str
    assignment: str
    path: Path                 # the file as handed in (any name)
    notebook: str              # the course notebook it should be (its source's name)

    @property
    def key(self) -> str:
        return f"{self.student}/{self.assignment}/{self.notebook}"


def home() -> Path:
    return paths.grading_home()


def submitted_dir() -> Path:
    return home() / "submitted"


def autograded_dir() -> Path:
    return home() / "autograded"


def source_digests(sources: list[Source]) -> dict[str, str]:
    """Per assignment: changes when any of its tests, points or setup change, which regrades its class."""
    out: dict[str, str] = {}
    for s in sorted(sources, key=lambda s: s.path):
        out[s.assignment] = hashlib.sha256((out.get(s.assignment, "") + s.path.read_text()).encode()).hexdigest()[:16]
    return out


# ---------------------------------------------------------------------------------------- discovery

def discover(sources: list[Source], assignment: str | None = None) -> tuple[list[HandIn], list[dict]]:
    """Every submission in submitted/, and a problem record for each expected notebook that is absent.

    A notebook under another name is found by its content; a student folder with an assignment but no
    notebook of it is recorded as missing.
    """
    by_assignment: dict[str, list[Source]] = {}
    for s in sources:
        by_assignment.setdefault(s.assignment, []).append(s)
    found, problems = [], []
    root = submitted_dir()
    if not root.exists():
        return found, problems
    for student_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir()):
            if assignment_dir.name not in by_assignment or (assignment and assignment_dir.name != assignment):
                continue
            expected = {s.name: s for s in by_assignment[assignment_dir.name]}
            files = sorted(assignment_dir.glob("*.ipynb"))
            claimed = set()
            # each file is the notebook its name says, else the one its content is; of several copies of one
            # notebook (nbgrader's exchange takes the student's whole folder), copies.choose picks
            copies_of: dict[str, list[Path]] = {}
            for f in files:
                name = f.stem if f.stem in expected else _identify(f, list(expected.values()))
                if name:
                    copies_of.setdefault(name, []).append(f)
            for name, paths_ in copies_of.items():
                chosen = paths_[0] if len(paths_) == 1 else _choose(paths_, expected[name], student_dir.name,
                                                                    problems)
                found.append(HandIn(student_dir.name, assignment_dir.name, chosen, name))
                claimed.add(name)
            for name in expected:
                if name not in claimed:
                    problems.append({"student": student_dir.name, "assignment": assignment_dir.name,
                                     "notebook": name, "status": "missing",
                                     "reason": f"no notebook {name}.ipynb was handed in"
                                               + (f" (found: {', '.join(f.name for f in files)})" if files else "")})
    return found, problems


# What nbgrader's exchange writes beside a submission; its autograde copies them to the graded folder, and
# `nbgrader release_feedback` needs them there (the secret names the feedback file a student may fetch).
SUBMISSION_RECORDS = ("timestamp.txt", "submission_secret.txt")


def copy_submission_records(submitted: Path, graded: Path) -> None:
    for name in SUBMISSION_RECORDS:
        if (submitted / name).is_file():
            atomic_write(graded / name, (submitted / name).read_text(encoding="utf-8"))


def _choose(paths_: list[Path], source: Source, student: str, problems: list[dict]) -> Path:
    """The copy copies.choose grades among `paths_`, with a record (status "chosen") naming every copy and why."""
    from autograder.classroom import copies

    considered = []
    for path in paths_:
        try:
            nb = notebooks.read(path)
        except NotebookError:
            nb = None
        considered.append(copies.Copy(path, path.name, source, nb))
    best, lines = copies.choose(considered)
    problems.append({"student": student, "assignment": source.assignment, "notebook": source.name,
                     "status": "chosen", "reason": "of several copies, " + best.path.name + " is graded:\n"
                     + "\n".join(f"    {line}" for line in lines)})
    return best.path


def _identify(path: Path, candidates: list[Source]) -> str | None:
    try:
        nb = notebooks.read(path)
        return notebooks.match_source(nb, path.name, candidates).name
    except NotebookError:
        return candidates[0].name if len(candidates) == 1 else None


# --------------------------------------------------------------------------------------------- resume

def marker_path(sub: HandIn) -> Path:
    return autograded_dir() / sub.student / sub.assignment / f"{sub.notebook}.grade.json"


def up_to_date(sub: HandIn, digests: dict[str, str], sha: str | None = None) -> bool:
    """Whether its grade record matches this file (`sha`, if already computed) and the current sources."""
    marker = marker_path(sub)
    if not marker.exists():
        return False
    try:
        data = json.loads(marker.read_text())
    except ValueError:
        return False
    return data.get("sha256") == (sha or file_sha(sub.path)) and data.get("sources") == digests.get(sub.assignment)


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stat_of(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def read_once(path: Path) -> tuple[bytes | None, tuple | None]:
    """(its bytes, capped as a submission's are; None if unreadable or too large, its stat when read)."""
    stat = stat_of(path)
    try:
        if stat is None or stat[1] > notebooks.max_submission_bytes():
            return None, stat
        return path.read_bytes(), stat
    except OSError:
        return None, stat


def atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------- assignments

class UnknownAssignment(NotebookError):
    """An assignment named on the command line that is not one of this course's."""


def check_assignment(assignment: str | None, sources: list[Source] | None = None) -> None:
    """UnknownAssignment unless `assignment` is None or one of the course's assignments (`01_square`)."""
    if assignment is None:
        return
    known = sorted({s.assignment for s in (sources if sources is not None else notebooks.sources())})
    if assignment not in known:
        close = [a for a in known if assignment and (a.startswith(assignment) or assignment in a)]
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise UnknownAssignment(f"{assignment!r} is not an assignment of this course{hint}; its assignments are "
                                f"{', '.join(known)}")

