"""Which file of a Gradescope upload is graded as which notebook, and why: a line per file considered."""

from __future__ import annotations

import os
from pathlib import Path

from autograder.classroom.gradescope_settings import MAX_CANDIDATES


def candidates(submission: Path) -> list[Path]:
    """Every notebook the student uploaded, whatever its name or folder."""
    if not submission.is_dir():
        return []
    return sorted(p for p in submission.rglob("*.ipynb")
                  if p.is_file() and not {".ipynb_checkpoints", "__MACOSX"} & set(p.relative_to(submission).parts))


def _normalised(text) -> str:
    return "\n".join(line.rstrip() for line in "".join(text).strip().splitlines())


def answered(nb, source) -> tuple[int, int]:
    """(answer cells of `source` whose submitted text differs from the released one, answer cells)."""
    from autograder.engine import notebooks
    from autograder.engine.notebooks import nbgrader_meta

    released = {nbgrader_meta(c)["grade_id"]: _normalised(c.source) for c in source.cells("answer")}
    submitted = notebooks.submitted_answers(nb)
    return sum(1 for g, text in released.items() if g in submitted and _normalised(submitted[g]) != text), \
        len(released)


def consider(files: list[Path], sources: list, index: dict, top: Path, limit: int | None = None):
    """Which file to grade for each assignment, and why. Returns ([(file, notebook, source)] one per
    assignment, [a line per file considered], [a reason per file not graded that is no notebook of this
    autograder]). Among a notebook's copies the one with most answer cells filled in wins (JupyterLab's
    "Duplicate" leaves a blank `-Copy1` beside the answered file), then the one named like the course's."""
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
        filled, total = answered(nb, source)
        has_answers = bool(notebooks.submitted_answers(nb))
        rank = (filled, has_answers, overlap.get(source.assignment, 0), path.name == source.path.name)
        found.setdefault(source.assignment, []).append((rank, path, nb, source, filled, total))
    chosen = []
    for assignment in sorted(found):
        copies = found[assignment]
        best = max(copies, key=lambda c: c[0])  # max() keeps the first of equals: sorted paths decide ties
        chosen.append(best[1:4])
        for rank, path, nb, source, filled, total in copies:
            what = (f"- {shown(path)} (the notebook {source.name}, {filled} of {total} answer cells filled in)"
                    if rank[1] else f"- {shown(path)} (the notebook {source.name}, without answer cells)")
            if path is best[1]:
                lines.append(f"{what}: chosen{_why_chosen(best, copies)}.")
            else:
                fewer = "fewer answers" if rank[0] < best[0][0] else "as many answers"
                lines.append(f"{what}: not chosen ({fewer} than {shown(best[1])}).")
    return chosen, lines, rejected


def _why_chosen(best, copies) -> str:
    """Why `best` won among `copies` (each (rank, path, ...), rank = (filled, has answers, cells shared,
    named like the course notebook)): its first rank component that beats the next best copy."""
    others = [c for c in copies if c[1] is not best[1]]
    if not others:
        return ""
    runner = max(others, key=lambda c: c[0])
    reasons = ("the copy with the most answer cells filled in", "the copy with answer cells",
               "the copy with the most of the course notebook's cells", "the copy named like the course notebook")
    for mine, theirs, reason in zip(best[0], runner[0], reasons):
        if mine != theirs:
            return f" ({reason})"
    return " (of equal copies, the first by name)"
