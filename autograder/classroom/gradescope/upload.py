"""Which file of a Gradescope upload is graded as which notebook, and why: a line per file considered."""

from __future__ import annotations

import os
from pathlib import Path

from autograder.classroom.copies import Copy, choose
from autograder.classroom.gradescope.settings import MAX_CANDIDATES


def candidates(submission: Path) -> list[Path]:
    """Every notebook the student uploaded, whatever its name or folder."""
    if not submission.is_dir():
        return []
    found = []
    for folder, dirs, files in os.walk(submission, followlinks=False):  # a link is no upload: never followed
        dirs[:] = [d for d in dirs if d not in {".ipynb_checkpoints", "__MACOSX"}]
        found += [Path(folder) / f for f in files if f.endswith(".ipynb")
                  and not (Path(folder) / f).is_symlink() and (Path(folder) / f).is_file()]
    return sorted(found)


def consider(files: list[Path], sources: list, index: dict, top: Path, limit: int | None = None):
    """Which file to grade for each assignment, and why. Returns ([(file, notebook, source)] one per
    assignment, [a line per file considered], [a reason per file not graded that is no notebook of this
    autograder]). Among a notebook's copies, copies.choose decides (the rule every way in shares)."""
    from autograder.engine import notebooks
    from autograder.engine.notebooks import NotebookError

    def shown(path: Path) -> str:
        return path.relative_to(top).as_posix()

    found: dict[str, list] = {}
    lines, rejected = [], []
    if len(files) > MAX_CANDIDATES:
        reason = (f"{len(files) - MAX_CANDIDATES} more notebooks ({', '.join(shown(p) for p in files[MAX_CANDIDATES:][:5])}"
                  f"{', ...' if len(files) > MAX_CANDIDATES + 5 else ''}): an upload is read up to its first "
                  f"{MAX_CANDIDATES} notebooks by name")
        lines.append(f"- {reason}: not considered.")
        rejected.append(reason)
        files = files[:MAX_CANDIDATES]
    for path in files:
        try:
            nb = notebooks.read(path, limit)
        except NotebookError as error:
            reason = str(error).replace(str(top) + os.sep, "")
            lines.append(f"- {reason}: not graded.")
            rejected.append(reason)
            continue
        ids = notebooks.ids_in(nb)
        overlap = {s.assignment: len(ids & (set(s.grade_ids("answer")) | set(s.grade_ids("test")))) for s in sources}
        if not any(overlap.values()):
            other = max(((len(ids & set(entry["ids"])), a) for a, entry in index.items()
                         if a not in overlap), default=(0, ""))
            if other[0]:
                wanted = ", ".join(f"{s.name}.ipynb" for s in sources)
                reason = (f"{shown(path)} is the notebook {index[other[1]]['notebook']} (assignment {other[1]}), "
                          f"not one this autograder grades ({wanted}): upload it to that assignment")
                lines.append(f"- {reason}.")
                rejected.append(reason)
                continue
        try:
            source = notebooks.match_source(nb, path.name, sources)
        except NotebookError as error:
            reason = str(error).replace(str(top) + os.sep, "")
            lines.append(f"- {reason}: not graded.")
            rejected.append(reason)
            continue
        found.setdefault(source.assignment, []).append(Copy(path, shown(path), source, nb))
    chosen = []
    for assignment in sorted(found):
        best, said = choose(found[assignment])
        chosen.append((best.path, best.nb, best.source))
        lines += said
    return chosen, lines, rejected
