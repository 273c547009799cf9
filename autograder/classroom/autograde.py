"""Grading a whole class: collect submissions, autograde them in parallel, write the gradebook once.

Folders follow nbgrader's layout under the grading home (default `.grading/`):

    submitted/<student>/<assignment>/<notebook>.ipynb     what students handed in (never modified)
    autograded/<student>/<assignment>/<notebook>.ipynb    nbgrader-style graded copy (feedback reads it)
    autograded/<student>/<assignment>/<notebook>.grade.json  our report: scores, feedback, sha256
    feedback/<student>/<assignment>/<notebook>.html       nbgrader's feedback, hidden tests removed
    gradebook.db                                          nbgrader's gradebook (or any SQLAlchemy URL)

Workers only grade; this process alone writes results, one submission at a time, in the order: autograded
notebook, gradebook, report marker (last, atomically). A batch killed at any point leaves no marker for
unfinished work, so a rerun regrades exactly what is missing and overwrites (never adds) gradebook rows.
"""

from __future__ import annotations

import concurrent.futures as futures
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
import unicodedata
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.engine import grading, notebooks
from autograder import paths
from autograder.engine.notebooks import NotebookError, Source
from autograder.engine.sandbox import Limits


@dataclass
class Submission:
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

def discover(sources: list[Source], assignment: str | None = None) -> tuple[list[Submission], list[dict]]:
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
            # exact names first, then anything else by content
            for f in files:
                if f.stem in expected and f.stem not in claimed:
                    found.append(Submission(student_dir.name, assignment_dir.name, f, f.stem))
                    claimed.add(f.stem)
            for f in files:
                if f.stem in expected:
                    continue
                name = _identify(f, list(expected.values()))
                if name and name not in claimed:
                    found.append(Submission(student_dir.name, assignment_dir.name, f, name))
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


def _copy_submission_records(submitted: Path, graded: Path) -> None:
    for name in SUBMISSION_RECORDS:
        if (submitted / name).is_file():
            _atomic_write(graded / name, (submitted / name).read_text(encoding="utf-8"))


def _identify(path: Path, candidates: list[Source]) -> str | None:
    try:
        nb = notebooks.read(path)
        return notebooks.match_source(nb, path.name, candidates).name
    except NotebookError:
        return candidates[0].name if len(candidates) == 1 else None


# --------------------------------------------------------------------------------------------- resume

def marker_path(sub: Submission) -> Path:
    return autograded_dir() / sub.student / sub.assignment / f"{sub.notebook}.grade.json"


def up_to_date(sub: Submission, digests: dict[str, str], sha: str | None = None) -> bool:
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


def _stat_of(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _read_once(path: Path) -> tuple[bytes | None, tuple | None]:
    """(its bytes, capped as a submission's are; None if unreadable or too large, its stat when read)."""
    stat = _stat_of(path)
    try:
        if stat is None or stat[1] > notebooks.max_submission_bytes():
            return None, stat
        return path.read_bytes(), stat
    except OSError:
        return None, stat


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------- work

_PARSED: dict = {}  # the sources' texts -> their Sources, parsed once per worker process


def _candidates(source_texts: dict[str, str]) -> list[Source]:
    key = tuple(sorted((p, hashlib.sha256(t.encode()).hexdigest()) for p, t in source_texts.items()))
    if key not in _PARSED:
        _PARSED[key] = [Source(Path(p), notebooks.parse(t, p)) for p, t in source_texts.items()]
    return _PARSED[key]


def grade_payload(text: str, name: str, source_texts: dict[str, str], seed: int, limits: Limits) -> dict:
    """Pure function run by a worker (a local thread or a Dask worker on another machine): everything it
    needs travels with it. Returns the JSON report and the autograded notebook as text."""
    sandbox = _worker_sandbox()
    candidates = _candidates(source_texts)
    try:
        report, autograded = grading.grade_text(text, name, sandbox, seed, limits, candidates)
    except NotebookError as error:
        source = next(s for s in candidates if Path(s.path).stem == Path(name).stem) if any(
            Path(s.path).stem == Path(name).stem for s in candidates) else candidates[0]
        report, autograded = unreadable_report(source, name, str(error))
    return {"report": report.to_json(), "autograded": nbformat.writes(autograded),
            "worker_pid": os.getpid(), "sandbox_pid": sandbox.pid}


def unreadable_report(source: Source, name: str, reason: str):
    """A submission that cannot be read scores zero on every test, with the reason as feedback."""
    _, tests = grading.plan(source, None)
    cells = [grading.CellResult(gid, 0.0, pts, "error", reason, "unreadable") for gid, pts, _ in tests]
    report = grading.Report(Path(name).name, source.assignment, 0.0, sum(c.max_points for c in cells), cells)
    empty = nbformat.v4.new_notebook()
    return report, grading.autograded_notebook(source, empty, cells)


_local = threading.local()
_all_sandboxes: list = []


def _worker_sandbox():
    sandbox = getattr(_local, "sandbox", None)
    if sandbox is None:
        sandbox = grading.new_sandbox().start()
        _local.sandbox = sandbox
        _all_sandboxes.append(sandbox)
    return sandbox


def close_sandboxes() -> None:
    while _all_sandboxes:
        _all_sandboxes.pop().close()
    _local.__dict__.clear()


# ------------------------------------------------------------------------------------------ gradebook

# nbgrader's own session handling emits SQLAlchemy warnings that are not ours to fix.
warnings.filterwarnings("ignore", module="nbgrader.api")
warnings.filterwarnings("ignore", message=".*not in session.*")


class GradebookWriter:
    """The single writer: nbgrader's own SaveAutoGrades on our autograded notebooks, so the gradebook
    holds exactly the scores nbgrader's autograde would compute from those outputs."""

    def __init__(self, db_url: str | None = None):
        from autograder.classroom.nbgrader_setup import config, use_in_process_alembic

        use_in_process_alembic()
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


# ----------------------------------------------------------------------------------------------- batch

@dataclass
class BatchResult:
    graded: list[dict]
    skipped: int
    problems: list[dict]
    seconds: float


class WeakIsolation(RuntimeError):
    """A class would be graded without the strong layers of isolation, and nobody said that is fine."""


def require_isolation(limits: Limits, allow_weak: bool) -> dict:
    """The isolation this machine gives a grading; WeakIsolation if it lacks namespaces, Landlock or seccomp
    and `allow_weak` is not set."""
    from autograder.engine import grading

    with grading.new_sandbox() as box:
        isolation = box.isolation(limits)
    if not isolation.get("strong") and not allow_weak:
        raise WeakIsolation(
            f"refusing to grade a class with weak isolation ({grading.describe_isolation(isolation)}): the "
            "verdicts would still be computed outside the learner's process, but its file, process and IPC "
            "rules are weaker (docs/threat-model.md, 'Levels of isolation'). Pass --allow-weak-isolation to "
            "grade anyway.")
    return isolation


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


def autograde(workers: int = 1, scheduler: str | None = None, assignment: str | None = None,
              force: bool = False, seed: int | None = None, limits: Limits | None = None, db_url: str | None = None,
              progress: bool = True, allow_weak_isolation: bool = False) -> BatchResult:
    """Grade every new or changed submission in submitted/ (or only `assignment`'s, which must be one of
    the course's: UnknownAssignment otherwise) into the gradebook."""
    start = time.monotonic()
    seed = grading.base_seed() if seed is None else seed
    limits = limits or Limits()
    sources = notebooks.sources()
    check_assignment(assignment, sources)
    digests = source_digests(sources)
    writer = GradebookWriter(db_url)
    subs, problems = discover(sources, assignment)
    # Each submission is read once: its bytes give the digest, the text graded, and (by their file's stat) the
    # proof at the end that nothing changed it meanwhile.
    contents = {s.key: _read_once(s.path) for s in subs}
    shas = {key: hashlib.sha256(data).hexdigest() if data is not None else "" for key, (data, _) in contents.items()}
    todo = [s for s in subs if force or not up_to_date(s, digests, shas[s.key])]
    skipped = len(subs) - len(todo)
    if todo and not scheduler:
        require_isolation(limits, allow_weak_isolation)
    source_texts = {str(s.path): s.path.read_text() for s in sources}
    by_assignment = {a: {p: t for p, t in source_texts.items() if Path(p).parent.name == a}
                     for a in {s.assignment for s in sources}}
    before = {s.key: shas[s.key] for s in todo}

    bar = _progress(len(todo), progress)
    graded = []

    def finish(sub: Submission, payload: dict) -> None:
        report = payload["report"]
        report.update({"student": sub.student, "sources": digests[sub.assignment], "sha256": before[sub.key],
                       "file": sub.path.name})
        out_dir = autograded_dir() / sub.student / sub.assignment
        _atomic_write(out_dir / f"{sub.notebook}.ipynb", payload["autograded"])
        _copy_submission_records(sub.path.parent, out_dir)
        writer.record(sub.student, sub.assignment, sub.notebook, payload["autograded"])
        _atomic_write(marker_path(sub), json.dumps(report, indent=1))
        graded.append(report)
        if bar is not None:
            bar.update(1)
            bar.write(f"  {sub.student:>16}  {sub.notebook:<28} {report['score']:>5g} / {report['max_score']:<4g}"
                      f" ({report['seconds']:.1f} s)")

    def payload_for(sub: Submission) -> tuple:
        data, stat = contents[sub.key]
        limit = notebooks.max_submission_bytes()
        try:
            text = data.decode("utf-8") if data is not None else \
                f"<unreadable: larger than {limit / 1e6:g} MB, the most a submitted notebook may be>" \
                if stat is not None and stat[1] > limit else "<unreadable: it cannot be read>"
        except UnicodeDecodeError as error:
            text = f"<unreadable: {error}>"
        # The file name given to the grader is the course notebook's: a renamed file is graded as what it is.
        return (text, f"{sub.notebook}.ipynb", by_assignment[sub.assignment], seed, limits)

    def prepare_gradebook() -> None:  # runs while the first submissions are graded
        writer.ensure_assignments([s for s in sources if s.assignment in {t.assignment for t in todo}])

    try:
        if scheduler:
            _run_dask(scheduler, todo, payload_for, finish, prepare_gradebook)
        else:
            with futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
                pending = {pool.submit(grade_payload, *payload_for(s)): s for s in todo}
                try:
                    prepare_gradebook()
                except BaseException:  # no gradebook, no batch: do not grade the rest first
                    for future in pending:
                        future.cancel()
                    raise
                for done in futures.as_completed(pending):
                    finish(pending[done], done.result())
    finally:
        close_sandboxes()
        if bar is not None:
            bar.close()
    for sub in todo:  # the grader never changes a submission: prove it (without reading it again)
        if _stat_of(sub.path) != contents[sub.key][1]:
            raise RuntimeError(f"{sub.path} changed while being graded")
    _write_problems(problems)
    return BatchResult(graded, skipped, problems, time.monotonic() - start)


def _run_dask(address: str, todo: list[Submission], payload_for, finish, prepare_gradebook) -> None:
    from distributed import Client, as_completed

    with Client(address, timeout="30s") as client:
        pending = {client.submit(grade_payload, *payload_for(s), pure=False, key=f"grade-{s.key}-{time.time()}"): s
                   for s in todo}
        try:
            prepare_gradebook()
        except BaseException:
            client.cancel(list(pending))
            raise
        for future in as_completed(pending):
            finish(pending[future], future.result())


def _progress(total: int, enabled: bool):
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="nb", desc="autograding", dynamic_ncols=True)


def _write_problems(problems: list[dict]) -> None:
    _atomic_write(home() / "problems.json", json.dumps(problems, indent=1))


def reports() -> list[dict]:
    """Every graded report on disk (the class's results, with mistakes, for reports and exports)."""
    out = []
    for marker in sorted(autograded_dir().glob("*/*/*.grade.json")):
        try:
            out.append(json.loads(marker.read_text()))
        except ValueError:
            continue
    return out


# ----------------------------------------------------------------------------------- feedback / export

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


# -------------------------------------------------------------------------------------------- collect
#
# Student ids from the names LMS downloads give (each layout as its LMS writes it):
#
#   Canvas       doejane_12345_678901_01_square.ipynb          sortable name, user id, file id, file
#                doejane_LATE_12345_678901_01_square.ipynb     (late)        -> doejane
#                anon_x7Yz2_678901_01_square.ipynb             (anonymous grading) -> anon-x7yz2
#   Moodle       Jane Doe_12345_assignsubmission_file/01_square.ipynb    (4.x, one folder per student)
#                Jane Doe_12345_assignsubmission_file_/01_square.ipynb   (3.x)
#                Jane Doe_12345_assignsubmission_file_01_square.ipynb    (without folders) -> jane-doe
#                Participant_12345_assignsubmission_file/...             (anonymous marking) -> participant-12345
#   Blackboard   Week 1_jdoe3_attempt_2024-01-01-12-00-00_01_square.ipynb  username -> jdoe3 (a username
#                with "_" is read from the .txt Blackboard writes beside it)
#   Brightspace  12345-67890 - Jane Doe - Jan 1, 2024 1200 PM - 01_square.ipynb   (or a folder of that
#                name holding the files) -> jane-doe
#   anything     <student>_<anything>.ipynb, <student>.ipynb, <student>/<anything>.ipynb
#
# Moodle's number is a participant id that Moodle allocates per assignment (its assign_user_mapping
# table): the same student has another number in the next assignment, so it cannot name a student
# across a course. The full name can, so Moodle and Brightspace ids are the name, lowercased, accents
# removed, words joined by "-". Two different students of one download with the same name (different
# participant ids in the same folder) are told apart by their number (jane-doe-12345), with a warning.
# Canvas user ids are global, so Canvas name clashes get the user id. Blackboard usernames are unique.
# When one download holds several attempts of a student (Blackboard, Brightspace), the latest counts.


@dataclass
class Origin:
    """Who handed a file in, as its download's names tell."""
    student: str
    lms: str = "folder"
    key: str | None = None          # the LMS's own number for this student within `scope`
    scope: str = ""                 # the folder the LMS wrote (one download)
    when: str = ""                  # sortable submission time, where the LMS gives one


_CANVAS = re.compile(r"^(?P<name>[^_]+)_(?:LATE_)?(?P<key>\d+)_\d+_.+$")
_CANVAS_ANON = re.compile(r"^(?:LATE_)?anon_(?P<key>[A-Za-z0-9]+)_\d+_.+$")
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<key>\d+)_assignsubmission_[a-z]+(?:_.*)?$")
_BLACKBOARD = re.compile(r"^(?P<prefix>.*_(?P<user>[^_]+))_attempt_"
                         r"(?P<when>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?:_.*)?$")
_BRIGHTSPACE = re.compile(r"^(?P<key>\d+-\d+) - (?P<name>.+?) - (?P<month>[A-Z][a-z]{2}) (?P<day>\d{1,2}), "
                          r"(?P<year>\d{4}) (?P<hour>\d{1,2})(?P<minute>\d{2}) (?P<ampm>[AP]M)(?: - .*)?$")
_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_MOODLE_ANONYMOUS = {"participant"}


def name_id(name: str) -> str:
    """A person's name as an id: `Jane Doe` -> `jane-doe`, `José Núñez` -> `jose-nunez`."""
    folded = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    return re.sub(r"[\W_]+", "-", folded.lower()).strip("-")


def clean_id(text: str, keep: str = "-.@") -> str:
    return "".join(ch for ch in text if ch.isalnum() or ch in keep)


def origin_of(rel: Path, root: Path | None = None) -> Origin:
    """The student of a file at `rel` (relative to the download's root), by the first folder or file
    name, from the top, that an LMS wrote; otherwise by the generic rules."""
    parts = rel.parts
    for i, part in enumerate(parts):
        leaf = i == len(parts) - 1
        name = Path(part).stem if leaf else part
        scope = str(Path(*parts[:i])) if i else "."
        if leaf and (m := _CANVAS_ANON.match(name)):
            return Origin(f"anon-{m['key'].lower()}", "canvas", m["key"], scope)
        if leaf and (m := _CANVAS.match(name)):
            return Origin(clean_id(m["name"]), "canvas", m["key"], scope)
        if m := _MOODLE.match(name):
            person = name_id(m["name"])
            if person in _MOODLE_ANONYMOUS:
                return Origin(f"{person}-{m['key']}", "moodle", m["key"], scope)
            return Origin(person, "moodle", m["key"], scope)
        if leaf and (m := _BLACKBOARD.match(name)):
            user = _blackboard_user(root / Path(*parts[:i]) if root else None, m) or m["user"]
            return Origin(clean_id(user, "-.@_"), "blackboard", None, scope, m["when"])
        if m := _BRIGHTSPACE.match(name):
            hour = int(m["hour"]) % 12 + (12 if m["ampm"] == "PM" else 0)
            when = f"{m['year']}-{_MONTHS.get(m['month'], 0):02d}-{int(m['day']):02d}-{hour:02d}-{m['minute']}"
            return Origin(name_id(m["name"]), "brightspace", None, scope, when)
    student = parts[0] if len(parts) > 1 else Path(parts[0]).stem.split("_")[0]
    return Origin(clean_id(student))


def _blackboard_user(folder: Path | None, m: re.Match) -> str | None:
    """Blackboard writes `<assignment>_<username>_attempt_<time>.txt` beside the files, whose `Name:` line
    line ends with the username in parentheses: exact even where the username or assignment has `_`."""
    if folder is None:
        return None
    info = folder / f"{m['prefix']}_attempt_{m['when']}.txt"
    try:
        text = info.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for user in re.findall(r"\(([^()\s]+)\)\s*$", text[:2000], re.M):  # the label is in the LMS's language
        if m["prefix"].endswith("_" + user):
            return user
    return None


def _tell_apart(origins: dict[Path, Origin]) -> None:
    """Different students of one download with the same id (same name, different LMS numbers) get
    their number appended, in place."""
    seen: dict[tuple[str, str, str], set[str]] = {}
    for o in origins.values():
        if o.key is not None:
            seen.setdefault((o.lms, o.scope, o.student), set()).add(o.key)
    for (lms, scope, student), keys in sorted(seen.items()):
        if len(keys) < 2:
            continue
        warnings.warn(f"{len(keys)} students in {scope} are all named {student!r} ({lms} ids "
                      f"{', '.join(sorted(keys))}): they are collected as "
                      f"{', '.join(f'{student}-{k}' for k in sorted(keys))}", stacklevel=3)
        for o in origins.values():
            if (o.lms, o.scope, o.student) == (lms, scope, student):
                o.student = f"{student}-{o.key.lower()}"


# Zip member names. A zip marks a UTF-8 name with flag bit 11; without it the spec says cp437, which
# Python's zipfile applies. But Info-ZIP on Linux (and macOS's ditto, and many scripts) writes the
# UTF-8 bytes of the name without setting the flag, adding the UTF-8 name again in an "Info-ZIP Unicode
# Path" extra field (0x7075) only where it was built to. Read as cp437, `Jürgen Müller` becomes
# `J├╝rgen M├╝ller` and the student id `j-rgen-m-ller`, while the folder the same zip unpacks to (with
# `unzip`, or the desktop's archive tool) gives `jurgen-muller`. So, for each name without the flag: the
# Unicode Path field when its checksum says it belongs to this name, else the bytes as UTF-8 when they
# are valid UTF-8 (cp437 bytes are valid UTF-8 only when ASCII, or when a box-drawing or Greek letter
# happens to precede accented ones), else cp437, what older Windows tools write.

_UNICODE_PATH = 0x7075


def _unicode_path_field(extra: bytes, raw: bytes) -> str | None:
    i = 0
    while i + 4 <= len(extra):
        kind, size = int.from_bytes(extra[i:i + 2], "little"), int.from_bytes(extra[i + 2:i + 4], "little")
        data = extra[i + 4:i + 4 + size]
        if kind == _UNICODE_PATH and len(data) > 5 and data[0] == 1 \
                and int.from_bytes(data[1:5], "little") == zlib.crc32(raw):
            try:
                return data[5:].decode("utf-8")
            except UnicodeDecodeError:
                return None
        i += 4 + size
    return None


def zip_member_name(info: zipfile.ZipInfo) -> str:
    """The name a zip member was given, decoded as the tool that wrote it meant (see above); "/" always
    separates folders (some Windows tools write "\\")."""
    if info.flag_bits & 0x800:
        name = info.orig_filename  # UTF-8, as flagged
    else:
        raw = info.orig_filename.encode("cp437")  # the bytes as stored: zipfile decoded them as cp437
        name = _unicode_path_field(info.extra, raw)
        if name is None:
            try:
                name = raw.decode("utf-8")
            except UnicodeDecodeError:
                name = info.orig_filename
    return name.replace("\\", "/")


def unpack(source: Path, dest: Path) -> list[str]:
    """Extract the zip `source` into `dest` under its members' real names (zip_member_name), refusing any
    member whose path leaves `dest`. Returns the names."""
    names = []
    with zipfile.ZipFile(source) as archive:
        members = [(info, zip_member_name(info)) for info in archive.infolist()]
        for _, name in members:
            parts = Path(name).parts
            if name.startswith("/") or ".." in parts:
                raise NotebookError(f"{source}: unsafe path in zip: {name}")
        for info, name in members:
            target = dest / name
            if name.endswith("/"):
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
            names.append(name)
    return names


def collect(source: Path, assignment: str | None = None) -> list[Submission]:
    """A folder of notebooks or an LMS zip download -> submitted/<student>/<assignment>/<notebook>.ipynb.

    Student ids come from the names the LMS gave the files or folders (Canvas, Moodle, Blackboard,
    Brightspace; see above), else from `<student>_<anything>.ipynb`, `<student>.ipynb` or
    `<student>/<anything>.ipynb`. The assignment and notebook are recognised from the content, so file
    names may be anything. Of several files for one student's notebook, the latest attempt counts (by the
    LMS's submission time, else the last by name). Existing submissions are replaced only by a file with
    different content.
    """
    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    sources = notebooks.sources()
    check_assignment(assignment, sources)
    with tempfile.TemporaryDirectory() as tmp:
        root = source
        if source.is_file():
            if not zipfile.is_zipfile(source):
                raise NotebookError(f"{source}: neither a folder nor a zip file")
            unpack(source, Path(tmp))
            root = Path(tmp)
        files = [p for p in sorted(root.rglob("*.ipynb"))
                 if "__MACOSX" not in p.parts and ".ipynb_checkpoints" not in p.parts and p.is_file()]
        origins = {p: origin_of(p.relative_to(root), root) for p in files}
        _tell_apart(origins)
        chosen: dict[Path, tuple[Path, Origin, Source]] = {}
        for path in files:
            origin = origins[path]
            try:
                nb = notebooks.read(path)
                src = notebooks.match_source(nb, path.name, sources)
            except NotebookError:
                if assignment is None:
                    continue
                src = next((s for s in sources if s.assignment == assignment), None)
                if src is None:
                    continue
            if assignment and src.assignment != assignment:
                continue
            student = origin.student or "unknown"
            target = submitted_dir() / student / src.assignment / f"{src.name}.ipynb"
            previous = chosen.get(target)
            if previous is None or origin.when >= previous[1].when:  # later attempts, then later names, win
                chosen[target] = (path, origin, src)
        collected = []
        for target, (path, origin, src) in chosen.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists() or target.read_bytes() != path.read_bytes():
                shutil.copyfile(path, target)
            collected.append(Submission(target.parent.parent.name, src.assignment, target, src.name))
    return collected
