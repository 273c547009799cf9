"""Moodle's import rows: each graded student found in the roster by name, in either order.

A Moodle download names a folder by the student's full name as the site displays it (its `fullnamedisplay`
setting: "First Last" by default, "Last First" on many sites), so a student is found in the roster by first and
last name in either order. Two people of the roster with that name cannot be told apart by it: the student is
left out, by name, with a sentence (their grade is entered by hand, or the roster is given ID numbers by which
to tell them apart).
"""

from __future__ import annotations

from autograder.classroom.layouts import name_id


def _split(name: str) -> tuple[str, str]:
    first, _, last = name.strip().partition(" ")
    return first, last


def roster_names(roster: list[dict]) -> dict[str, list[dict]]:
    """name id -> the roster's people of that name, each under "first last" and "last first"."""
    by_name: dict[str, list[dict]] = {}
    for r in roster:
        first, last = r.get("First name", ""), r.get("Last name", "")
        full = r.get("Full name", "").split()
        names = {name_id(" ".join(full)), name_id(" ".join(full[-1:] + full[:-1]))} if full else set()
        if first or last:
            names |= {name_id(f"{first} {last}"), name_id(f"{last} {first}")}
        for key in names - {""}:
            by_name.setdefault(key, []).append(r)
    return by_name


def moodle_rows(scores: dict, possible: dict, ids: dict, roster: list[dict],
                columns: list | None = None) -> tuple[list[list[str]], list[str]]:
    """(the CSV's rows, a "student: why" for each student left out)."""
    from autograder.classroom.lms import MOODLE_COLUMNS, number_text, moodle_columns

    columns = columns if columns is not None else moodle_columns(sorted(possible), roster, {})
    assignments = [c.assignment for c in columns]
    by_name = roster_names(roster)
    rows = [MOODLE_COLUMNS + [c.header for c in columns]]
    skipped = []
    for student in sorted(scores):
        name = ids.get(student, {}).get("name", "")
        matches = by_name.get(name_id(name) if name else student, [])
        unique = list({id(m): m for m in matches}.values())
        shown = f"{student} ({name})" if name else student
        if len(unique) > 1:
            skipped.append(f"{shown}: the roster has {len(unique)} people of that name, so the grade cannot go to "
                           "one of them by name (enter it in Moodle by hand)")
            continue
        person = unique[0] if unique else {}
        if not person:
            skipped.append(f"{shown}: not in the roster under that name, in either order")
            continue
        if not (person.get("Email address") or person.get("ID number")):
            skipped.append(f"{shown}: the roster gives no email address or ID number")
            continue
        first, last = (person.get("First name", ""), person.get("Last name", "")) if person.get("First name") \
            else _split(person.get("Full name") or name)
        rows.append([first, last, person.get("ID number", ""), person.get("Email address", "")]
                    + [number_text(scores[student][a]) if a in scores[student] else "" for a in assignments])
    return rows, skipped
