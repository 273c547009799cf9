"""Collecting a class's submissions: a folder of notebooks or an LMS's zip download, into submitted/.

Student ids from the names LMS downloads give (each layout as its LMS writes it):

  Canvas       doejane_12345_678901_01_square.ipynb          sortable name, user id, file id, file
               doejane_LATE_12345_678901_01_square.ipynb     (late)        -> doejane
               anon_x7Yz2_678901_01_square.ipynb             (anonymous grading) -> anon-x7yz2
  Moodle       Jane Doe_12345_assignsubmission_file/01_square.ipynb    (4.x, one folder per student)
               Jane Doe_12345_assignsubmission_file_/01_square.ipynb   (3.x)
               Jane Doe_12345_assignsubmission_file_01_square.ipynb    (without folders) -> jane-doe
               Participant_12345_assignsubmission_file/...             (anonymous marking) -> participant-12345
  Blackboard   Week 1_jdoe3_attempt_2024-01-01-12-00-00_01_square.ipynb  username -> jdoe3 (a username
               with "_" is read from the .txt Blackboard writes beside it)
  Brightspace  12345-67890 - Jane Doe - Jan 1, 2024 1200 PM - 01_square.ipynb   (or a folder of that
               name holding the files) -> jane-doe
  anything     <student>_<anything>.ipynb, <student>.ipynb, <student>/<anything>.ipynb

Moodle's number is a participant id that Moodle allocates per assignment (its assign_user_mapping
table): the same student has another number in the next assignment, so it cannot name a student
across a course. The full name can, so Moodle and Brightspace ids are the name, lowercased, accents
removed, words joined by "-". Two different students of one download with the same name (different
participant ids in the same folder) are told apart by their number (jane-doe-12345), with a warning.
Canvas user ids are global, so Canvas name clashes get the user id. Blackboard usernames are unique.
When one download holds several attempts of a student (Blackboard, Brightspace), the latest counts.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
import warnings
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from autograder.classroom import intake, lateness
from autograder.classroom.submissions import HandIn, check_assignment, submitted_dir
from autograder.engine import notebooks
from autograder.engine.notebooks import NotebookError, Source


@dataclass
class Origin:
    """Who handed a file in, as its download's names tell."""
    student: str
    lms: str = "folder"
    key: str | None = None          # the LMS's own number for this student within `scope`
    scope: str = ""                 # the folder the LMS wrote (one download)
    when: str = ""                  # sortable attempt time, where the LMS's names give one (the later counts)
    late: bool = False              # the LMS marked it late (Canvas's LATE_)
    submitted: str = ""             # when it was handed in (ISO 8601, UTC), where the download says


@dataclass
class Found:
    """A notebook of a download as collect read it: its path in the download, who handed it in, and the
    course notebook it is (None: unreadable, or none of the course's)."""
    rel: Path
    origin: Origin
    source: Source | None


# Each pattern matches the part of a name the LMS wrote, from its start; what follows is the student's own file
# name. Every part before the student's file name is matched lazily, and of several patterns the one whose LMS
# part ends first wins: a student who names a file `_bob_attempt_2099-12-31-23-59-59_x.ipynb` cannot make the
# LMS part seem to end inside her own file name (and so name bob).
_CANVAS = re.compile(r"^(?P<name>[^_]+)_(?P<late>LATE_)?(?P<key>\d+)_\d+_(?=.)")
_CANVAS_ANON = re.compile(r"^(?P<late>LATE_)?anon_(?P<key>[A-Za-z0-9]+)_\d+_(?=.)")
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<key>\d+)_assignsubmission_[a-z]+(?:_|$)")
_BLACKBOARD = re.compile(r"^(?P<prefix>.*?_(?P<user>[^_]+))_attempt_"
                         r"(?P<when>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?:_|$)")
_BRIGHTSPACE = re.compile(r"^(?P<key>\d+-\d+) - (?P<name>.+?) - (?P<month>[A-Z][a-z]{2}) (?P<day>\d{1,2}), "
                          r"(?P<year>\d{4}) (?P<hour>\d{1,2})(?P<minute>\d{2}) (?P<ampm>[AP]M)(?: - |$)")
_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_MOODLE_ANONYMOUS = {"participant"}


def name_id(name: str) -> str:
    """A person's name as an id: `Jane Doe` -> `jane-doe`, `José Núñez` -> `jose-nunez`."""
    folded = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    return re.sub(r"[\W_]+", "-", folded.lower()).strip("-")


def clean_id(text: str, keep: str = "-.@") -> str:
    return "".join(ch for ch in text if ch.isalnum() or ch in keep)


def _first_lms_part(name: str, leaf: bool) -> tuple[str, re.Match] | None:
    """(layout, match) of the pattern whose LMS-written part of `name` ends first (see the patterns)."""
    kinds = (("canvas-anonymous", _CANVAS_ANON), ("canvas", _CANVAS), ("blackboard", _BLACKBOARD)) if leaf else ()
    matches = [(kind, m) for kind, pattern in kinds + (("moodle", MOODLE), ("brightspace", _BRIGHTSPACE))
               if (m := pattern.match(name))]
    return min(matches, key=lambda km: km[1].end(), default=None)


def origin_of(rel: Path, root: Path | None = None) -> Origin:
    """The student of a file at `rel` (relative to the download's root), by the first folder or file
    name, from the top, that an LMS wrote; otherwise by the generic rules."""
    parts = rel.parts
    for i, part in enumerate(parts):
        leaf = i == len(parts) - 1
        found = _first_lms_part(Path(part).stem if leaf else part, leaf)
        if found is None:
            continue
        kind, m = found
        scope = str(Path(*parts[:i])) if i else "."
        if kind == "canvas-anonymous":
            return Origin(f"anon-{m['key'].lower()}", "canvas", m["key"], scope, late=bool(m["late"]))
        if kind == "canvas":
            return Origin(clean_id(m["name"]), "canvas", m["key"], scope, late=bool(m["late"]))
        if kind == "moodle":
            person = name_id(m["name"])
            if person in _MOODLE_ANONYMOUS:
                return Origin(f"{person}-{m['key']}", "moodle", m["key"], scope)
            return Origin(person, "moodle", m["key"], scope)
        if kind == "blackboard":
            user = _blackboard_user(root / Path(*parts[:i]) if root else None, m) or m["user"]
            return Origin(clean_id(user, "-.@_"), "blackboard", None, scope, m["when"])
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


@dataclass
class CollectLog:
    """What collect says beyond the submissions: each file refused (a sentence naming it), and for each student
    with several copies of a notebook, a line per copy considered and why one was chosen (copies.choose)."""
    refused: list[str] = field(default_factory=list)
    chosen: list[str] = field(default_factory=list)


def unpack(source: Path, dest: Path, refused: list[str] | None = None) -> list[str]:
    """The zip `source`'s notebooks (and Blackboard's .txt files), unpacked into `dest` under their real names
    (zip_member_name); each member refused (intake.unpack) adds a sentence to `refused`."""
    return intake.unpack(Path(source), Path(dest), [] if refused is None else refused, zip_member_name)


def _zip_times(source: Path) -> dict[str, str]:
    """Each member's time as the zip stores it (Moodle stores a file's submission time; ISO 8601, no zone)."""
    with zipfile.ZipFile(source) as archive:
        return {zip_member_name(i): "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}".format(*i.date_time)
                for i in archive.infolist()}


def collect(source: Path, assignment: str | None = None, found: list[Found] | None = None,
            log: CollectLog | None = None, due: str | None = None) -> list[HandIn]:
    """A folder of notebooks or an LMS zip download -> submitted/<student>/<assignment>/<notebook>.ipynb.

    Student ids come from the names the LMS gave the files or folders (Canvas, Moodle, Blackboard,
    Brightspace; see above), else from `<student>_<anything>.ipynb`, `<student>.ipynb` or
    `<student>/<anything>.ipynb`. The assignment and notebook are recognised from the content, so file
    names may be anything. Of several files for one student's notebook, copies.choose picks (the latest
    attempt, then the most answers...). Nothing of the download is trusted (intake): a file refused adds a
    sentence to `log.refused`, and everyone else is collected. Existing submissions are replaced only by a
    file with different content. Beside each, its lateness (lateness.record: Canvas's LATE_, Moodle's
    submission time after `due`). `found`, if given, receives every notebook of the download as read here
    (Found), for what else its names tell (lms.record_identities), so that nothing reads the download twice.
    """
    from autograder.classroom import copies

    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    sources = notebooks.sources()
    check_assignment(assignment, sources)
    found = [] if found is None else found
    log = CollectLog() if log is None else log
    with tempfile.TemporaryDirectory() as tmp:
        root, times = source, {}
        if source.is_file():
            if not zipfile.is_zipfile(source):
                raise NotebookError(f"{source}: neither a folder nor a zip file")
            try:
                unpack(source, Path(tmp), log.refused)
                times = _zip_times(source)
            except (zipfile.BadZipFile, OSError, ValueError) as error:
                raise NotebookError(f"{source}: not a readable zip file ({error})") from None
            root = Path(tmp)
        files = intake.notebook_files(root, log.refused)
        origins = {p: origin_of(p.relative_to(root), root) for p in files}
        _tell_apart(origins)
        by_target: dict[Path, list] = {}
        for path in files:
            origin, rel = origins[path], path.relative_to(root)
            origin.submitted = times.get(rel.as_posix(), "") if origin.lms == "moodle" else ""
            try:
                nb = notebooks.read(path)
                src = notebooks.match_source(nb, path.name, sources)
            except NotebookError as error:
                nb = src = None
                unread = str(error).replace(f"{path}: ", "")
            found.append(Found(rel, origin, src))
            if problem := intake.student_problem(origin.student):
                log.refused.append(f"{intake.shown(rel)}: not collected, {problem}")
                continue
            if src is None:
                if assignment is None:  # with --assignment it is filed as that one's, and graded 0 with why
                    log.refused.append(f"{intake.shown(rel)}: not collected, {unread} (collect --assignment files "
                                       "it as that assignment's, to be graded 0 with this reason)")
                    continue
                src = next((s for s in sources if s.assignment == assignment), None)
                if src is None:
                    continue
            if assignment and src.assignment != assignment:
                continue
            target = submitted_dir() / origin.student / src.assignment / f"{src.name}.ipynb"
            by_target.setdefault(target, []).append(
                (copies.Copy(path, intake.shown(rel), src, nb, origin.when), origin))
        collected = []
        for target, considered in by_target.items():
            best, lines = copies.choose([c for c, _ in considered])
            origin = next(o for c, o in considered if c is best)
            if len(considered) > 1:
                log.chosen += [f"{origin.student}/{best.source.assignment}:"] + [f"  {line}" for line in lines]
            target.parent.mkdir(parents=True, exist_ok=True)
            data = best.path.read_bytes()
            if not target.exists() or target.read_bytes() != data:
                target.write_bytes(data)
            lateness.record(target.parent, origin, due)
            collected.append(HandIn(origin.student, best.source.assignment, target, best.source.name))
    return collected
