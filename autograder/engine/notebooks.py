"""What each cell of a course notebook is for, and how a submission maps onto its instructor source.

Roles (from nbgrader's cell metadata and one tag of ours):
  setup   code cells tagged "setup" (imports); run before the answers when grading
  answer  nbgrader solution cells (grade_id "answer_<Exercise>"); the only cells taken from a submission
  test    nbgrader grade cells (autograded tests with points); always taken from the instructor source
  other   markdown and demonstration cells; not run when grading
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder import paths

MARKER = re.compile(r"^[ \t]*### (BEGIN|END) (SOLUTION|HIDDEN TESTS)[ \t]*\n?", re.M)
HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*\n?", re.M | re.S)


class NotebookError(ValueError):
    """Bad input: not a notebook, unreadable, or not one of this course's notebooks."""


def nbgrader_meta(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def role(cell) -> str:
    meta = nbgrader_meta(cell)
    if cell.get("cell_type") != "code":
        return "other"
    if meta.get("grade") and meta.get("grade_id"):
        return "test"
    if meta.get("solution") and meta.get("grade_id"):
        return "answer"
    if "setup" in (cell.get("metadata", {}).get("tags") or []):
        return "setup"
    return "other"


def strip_markers(source: str) -> str:
    """The reference solution / full test as it runs: marker lines removed, their content kept."""
    return MARKER.sub("", source)


def without_hidden_tests(source: str) -> str:
    return HIDDEN.sub("", source)


# The largest submission read: a bigger file is refused before it is read (AUTOGRADER_MAX_SUBMISSION_MB
# changes it). A course notebook without outputs is well under 1 MB.
MAX_SUBMISSION_MB = 20.0


def max_submission_bytes() -> int:
    import os

    value = os.environ.get("AUTOGRADER_MAX_SUBMISSION_MB", "").strip()
    return int(float(value or MAX_SUBMISSION_MB) * 1_000_000)


def read_text(path: str | Path, limit: int | None = None) -> str:
    """The file as text, never more than `limit` bytes of it read (default: max_submission_bytes()):
    NotebookError for a larger file, UnicodeDecodeError or OSError as reading raises them."""
    limit = max_submission_bytes() if limit is None else int(limit)
    chunks, size = [], 0
    with open(path, "rb") as file:
        while size <= limit:
            chunk = file.read(min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    data = b"".join(chunks)
    if size > limit:
        raise NotebookError(f"{path}: is larger than {limit / 1e6:g} MB, the most a submitted notebook may be "
                            "(a course notebook is well under 1 MB: clear its outputs and save it again)")
    return data.decode("utf-8")


def notebook_text(path: str | Path, limit: int | None = None) -> str:
    """The text of a file given as a notebook: NotebookError (a sentence) for a missing file, a folder, an
    unreadable or oversized one."""
    path = Path(path)
    if not path.exists():
        raise NotebookError(f"{path}: no such file")
    if path.is_dir():
        raise NotebookError(f"{path}: is a folder, not a notebook")
    try:
        return read_text(path, limit)
    except (UnicodeDecodeError, OSError) as error:
        raise NotebookError(f"{path}: cannot be read as text ({error})") from None


def read(path: str | Path, limit: int | None = None) -> nbformat.NotebookNode:
    return parse(notebook_text(path, limit), str(path))


MAX_NESTING = 64  # lists and objects inside each other: a notebook's outputs nest about 6 deep


def _deeper_than(data, limit: int) -> bool:
    """Whether `data` nests lists and dicts more than `limit` deep, found without recursion."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


def parse(text: str, name: str = "notebook") -> nbformat.NotebookNode:
    """The notebook in `text`, its JSON decoded once (then handed to nbformat as a dict, as `nbformat.reads`
    would after decoding it again)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"{name}: not a notebook (unreadable JSON: {error})") from None
    except RecursionError:  # the decoder's own nesting limit: no notebook nests so
        data = None
    if data is None or _deeper_than(data, MAX_NESTING):
        raise NotebookError(f"{name}: not a notebook (its JSON nests more than {MAX_NESTING} levels deep; a "
                            "notebook nests a few)")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError(f"{name}: not a Jupyter notebook (no list of cells)")
    try:
        major, minor = nbformat.reader.get_version(data)
        if major not in nbformat.versions:
            raise nbformat.NBFormatError(f"unsupported nbformat version {major}")
        nb = nbformat.convert(nbformat.versions[major].to_notebook_json(data, minor=minor), 4)
    except Exception as error:  # nbformat raises several types for malformed notebooks
        raise NotebookError(f"{name}: not a valid Jupyter notebook ({error})") from None
    try:
        nbformat.validate(nb)
    except Exception:  # noqa: BLE001 - as nbformat.reads: an invalid but readable notebook is still read
        pass
    return nb


@dataclass(frozen=True)
class Submission:
    """One submitted notebook, made once: read (capped), parsed, matched to its assignment, answers extracted.
    Every later step takes this value; none reads or parses the file again."""

    name: str                    # the file name it was submitted as
    text: str
    notebook: nbformat.NotebookNode
    source: "Source"
    answers: dict                # grade_id -> source of each answer cell it holds

    @property
    def sha256(self) -> str:
        import hashlib

        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def submission_from_text(text: str, name: str, candidates: list | None = None) -> Submission:
    nb = parse(text, name)
    return Submission(name, text, nb, match_source(nb, name, candidates), submitted_answers(nb))


def submission_from_path(path: str | Path, candidates: list | None = None, limit: int | None = None) -> Submission:
    """NotebookError (a sentence) for a missing file, a folder, an unreadable or oversized file, not a notebook,
    not one of this course's."""
    return submission_from_text(notebook_text(path, limit), str(path), candidates)


@dataclass(frozen=True)
class Source:
    """An instructor notebook in solutions/: its assignment (folder) and notebook name."""

    path: Path
    notebook: nbformat.NotebookNode

    @property
    def assignment(self) -> str:
        return self.path.parent.name

    @property
    def name(self) -> str:
        return self.path.stem

    def cells(self, kind: str) -> list:
        return [c for c in self.notebook.cells if role(c) == kind]

    def grade_ids(self, kind: str) -> list[str]:
        return [nbgrader_meta(c)["grade_id"] for c in self.cells(kind)]


_SOURCES: dict = {}  # path -> ((mtime, size), its Source): each instructor notebook parsed once per change


def sources(root: Path | None = None) -> list[Source]:
    """The instructor notebooks, each parsed once per process and again only when its file changes."""
    root = root or paths.SOLUTIONS
    found = []
    for path in sorted(root.glob("*/*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        cached = _SOURCES.get(str(path))
        if cached is None or cached[0] != stamp:
            cached = _SOURCES[str(path)] = (stamp, Source(path, read(path, limit=1 << 40)))  # the instructor's: no cap
        found.append(cached[1])
    return found


def ids_in(nb) -> set[str]:
    return {nbgrader_meta(c).get("grade_id") for c in nb.cells if nbgrader_meta(c).get("grade_id")}


def match_source(nb, name: str = "notebook", candidates: list[Source] | None = None) -> Source:
    """The instructor source a submission comes from, by its cells' grade ids (so a renamed file still
    matches), falling back to the file name when a student stripped every cell's metadata."""
    candidates = candidates if candidates is not None else sources()
    submitted = ids_in(nb)
    best, best_overlap = None, 0
    for source in candidates:
        answers = set(source.grade_ids("answer")) | set(source.grade_ids("test"))
        overlap = len(submitted & answers)
        if overlap > best_overlap:
            best, best_overlap = source, overlap
    if best is None:
        stem = Path(name).stem
        best = next((s for s in candidates if s.name == stem), None)
    if best is None:
        known = ", ".join(s.name for s in candidates) or "none"
        raise NotebookError(f"{name}: not a notebook of this course (none of its cells comes from the course's "
                            f"notebooks: {known}). Open the course's notebook, copy your answers into it, save it "
                            "and hand in that file")
    return best


def submitted_answers(nb) -> dict[str, str]:
    """grade_id -> source of every answer cell in a submission (first one wins if duplicated)."""
    answers: dict[str, str] = {}
    for cell in nb.cells:
        meta = nbgrader_meta(cell)
        if cell.get("cell_type") == "code" and meta.get("solution") and not meta.get("grade"):
            answers.setdefault(meta.get("grade_id", ""), cell.get("source", ""))
    return answers
