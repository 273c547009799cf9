"""What `collect` takes from a download, and what it refuses: a download is the students' data, so no name, size,
link or nesting in it is trusted. Each refusal is a sentence naming the file; everyone else is collected.

- A zip is unpacked member by member, counting the bytes actually written (never the sizes its headers claim):
  a notebook over the submission cap, a member that inflates more than MAX_RATIO times its compressed size,
  or a download past the total cap (AUTOGRADER_MAX_UNPACKED_MB) stops at the cap and is refused. Only notebooks
  and Blackboard's attempt .txt files are unpacked: nothing else of a download is read.
- A member whose path leaves the folder (absolute, `..`, a drive letter), a symbolic link, or a name whose part
  is longer than a file system allows (255 bytes) is refused.
- A folder is walked without following links: a link (to a solution, to /etc) is refused, not read.
- A student id must be a name of its own: not empty, no leading dot (`..` would leave submitted/), at most
  MAX_ID_BYTES.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

from autograder.engine import notebooks

MAX_NAME_BYTES = 255             # a file name's part, as Linux, macOS and Windows file systems allow
MAX_ID_BYTES = 128               # a student id: a folder of submitted/ and a gradebook key
MAX_RATIO = 100                  # a notebook's JSON deflates 3-10 times; 100 is a bomb
RATIO_FREE_BYTES = 1 << 20       # small members may inflate more (a blank notebook deflates well)
MAX_UNPACKED_MB = 2000.0         # a whole download, unpacked (AUTOGRADER_MAX_UNPACKED_MB)
MAX_INFO_BYTES = 64 * 1024       # Blackboard's attempt .txt
SKIPPED_PARTS = {"__MACOSX", ".ipynb_checkpoints"}
KEPT_SUFFIXES = (".ipynb", ".txt")


class Refused(Exception):
    """One file of a download left out; its message is the sentence."""


def shown(name: str, limit: int = 120) -> str:
    """A name from a download as it may be printed: control characters escaped, cut to `limit` characters."""
    text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in str(name))
    return text if len(text) <= limit else f"{text[:limit - 20]}...{text[-17:]}"


def max_unpacked_bytes() -> int:
    value = os.environ.get("AUTOGRADER_MAX_UNPACKED_MB", "").strip()
    return int(float(value or MAX_UNPACKED_MB) * 1_000_000)


def name_problem(name: str) -> str | None:
    """Why a member's path may not be written under the download's folder, or None."""
    parts = name.split("/")
    if name.startswith("/") or ".." in parts or (parts and len(parts[0]) == 2 and parts[0][1] == ":"):
        return "its path leaves the download's folder"
    if any(len(os.fsencode(part)) > MAX_NAME_BYTES for part in parts):
        return f"a part of its name is longer than {MAX_NAME_BYTES} bytes, more than a file system allows"
    return None


def student_problem(student: str) -> str | None:
    """Why `student` cannot name a folder of submitted/, or None."""
    if not student or student.startswith(".") or "/" in student or "\\" in student:
        return f"its name gives no student id (it would be {shown(student)!r})"
    if len(student.encode("utf-8")) > MAX_ID_BYTES:
        return f"the student id its name gives is longer than {MAX_ID_BYTES} bytes"
    return None


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def unpack(source: Path, dest: Path, refused: list[str], member_name) -> list[str]:
    """The notebooks (and Blackboard .txt files) of the zip `source`, written under `dest` by their real names
    (`member_name(info)`), each checked as above; every member left out adds a sentence to `refused`."""
    budget, written_names = max_unpacked_bytes(), []
    total = 0
    with zipfile.ZipFile(source) as archive:
        for info in archive.infolist():
            name = member_name(info)
            if name.endswith("/") or not name.lower().endswith(KEPT_SUFFIXES) or SKIPPED_PARTS & set(name.split("/")):
                continue
            try:
                problem = name_problem(name) or ("it is a symbolic link" if _is_link(info) else None)
                if problem:
                    raise Refused(f"{source.name}: {shown(name)}: not unpacked, {problem}")
                if total >= budget:
                    raise Refused(f"{source.name}: {shown(name)}: not unpacked, the download already unpacked to "
                                  f"{budget / 1e6:g} MB (AUTOGRADER_MAX_UNPACKED_MB)")
                cap = notebooks.max_submission_bytes() if name.lower().endswith(".ipynb") else MAX_INFO_BYTES
                total += _write_member(archive, info, source, name, dest / name, cap, budget - total)
                written_names.append(name)
            except Refused as refusal:
                refused.append(str(refusal))
    return written_names


def _write_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: Path, name: str, target: Path,
                  cap: int, room: int) -> int:
    """Stream one member to `target`, stopping (and removing it) as soon as it passes `cap`, the `room` left of the
    download's total, or inflates past MAX_RATIO. Returns the bytes written."""
    written, why, created = 0, None, False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # fails where an earlier member is a file of that name
        with archive.open(info) as src, open(target, "xb") as out:  # "x": a name given twice is refused
            created = True
            while chunk := src.read(1 << 16):
                written += len(chunk)
                if written > cap:
                    why = f"it unpacks to more than {cap / 1e6:g} MB"
                elif written > room:
                    why = (f"the download unpacks to more than {max_unpacked_bytes() / 1e6:g} MB in all "
                           "(AUTOGRADER_MAX_UNPACKED_MB)")
                elif written > RATIO_FREE_BYTES and written > MAX_RATIO * max(info.compress_size, 1):
                    why = f"it inflates more than {MAX_RATIO} times its packed size (a zip bomb)"
                if why:
                    break
                out.write(chunk)
    except FileExistsError:
        why = "the download holds another file of that name"
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as error:
        why = f"it cannot be unpacked ({error})"
    if why:
        if created:
            target.unlink(missing_ok=True)
        raise Refused(f"{source.name}: {shown(name)}: not unpacked, {why}")
    return written


def notebook_files(root: Path, refused: list[str]) -> list[Path]:
    """Every .ipynb under `root`, sorted, without following links: a link, or anything but a regular file within
    the size cap, adds a sentence to `refused` instead."""
    found, limit = [], notebooks.max_submission_bytes()
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        for d in list(dirs):
            if d in SKIPPED_PARTS:
                dirs.remove(d)
            elif (here / d).is_symlink():
                refused.append(f"{shown((here / d).relative_to(root))}/: not read, it is a symbolic link (to "
                               f"{shown(os.readlink(here / d))})")
        for name in files:
            if not name.lower().endswith(".ipynb"):
                continue
            path = here / name
            rel = shown(path.relative_to(root))
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                refused.append(f"{rel}: not read, it is a symbolic link (to {shown(os.readlink(path))})")
            elif not stat.S_ISREG(info.st_mode):
                refused.append(f"{rel}: not read, it is not a regular file")
            elif info.st_size > limit:
                refused.append(f"{rel}: not read, it is larger than {limit / 1e6:g} MB, the most a submitted "
                               "notebook may be")
            else:
                found.append(path)
    return sorted(found)
