"""Which graded tests rest on a fact only the learner's process can report, and their share of the points.

    python -m autograder.maintain.probe_share [--markdown]

Each test cell of every instructor notebook runs once, in this process (the grading pipeline with the
in-process runner: the reference answers are trusted code), on the reference answers, with a recording
stand-in for the judge's link to the learner's process: every probe a check runs there and every
fact it reads about a returned tensor (`grad_fn`'s type, shared storage) is noted. A test that read such a
fact has points a forger of that fact could reach without the behaviour; a test that read none rests only on
values and gradients the judge computed itself. `function_facts` (is it a `Function` subclass, static
methods, which style) is listed apart: every test reads it as a precondition, and forging it gains nothing
unless the values are right as well.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager

from autograder.engine import grading, notebooks

PRECONDITION = "autograder.checks.common:function_facts"
TENSOR_FACTS = "tensor facts (grad_fn, storage)"
BEGIN, END = "<!-- probe share: begin (python -m autograder.maintain.probe_share --write) -->", "<!-- probe share: end -->"


class RecordingLink:
    """Stands for the judge's link: a probe runs here (one process) and its name is noted."""

    def __init__(self):
        self.read: set = set()

    def probe(self, name, args, kwargs):
        from autograder.checks.common import PROBES

        self.read.add(name)
        return PROBES[name](*args, **kwargs)

    def count_as_compiling(self, result) -> None:
        """The bench counts compile time; this tool counts facts read: nothing to do."""

    def note(self, fact: str) -> None:
        """A fact read without a probe (the record the learner's process keeps of an ordinary call)."""
        self.read.add(fact)


@contextmanager
def recording(link: RecordingLink):
    from autograder.engine import shared
    from autograder.checks import common

    original = shared.facts_of

    def facts_of(tensor):
        link.read.add(TENSOR_FACTS)
        return None  # a tensor of this process: the checks read it directly

    common.attach_learner(link)
    shared.facts_of = facts_of
    try:
        yield link
    finally:
        shared.facts_of = original
        common.attach_learner(None)


def test_facts(source) -> list[dict]:
    """[{grade_id, points, facts: sorted names}] for every test of one notebook, on its reference answers."""
    from autograder.engine.runners import InProcessRunner
    from autograder.engine.sandbox import Limits

    links: dict = {}

    def record(grade_id):
        return recording(links.setdefault(grade_id, RecordingLink()))

    before, tests = grading.plan(source, None)
    rows = []
    for result in grading.run_tests(InProcessRunner(around_test=record), before, tests, 0, Limits()):
        if result.status != "passed":
            raise RuntimeError(f"{source.assignment} {result.grade_id}: the reference fails ({result.feedback})")
        rows.append({"grade_id": result.grade_id, "points": result.max_points,
                     "facts": sorted(links[result.grade_id].read)})
    return rows


def share(sources=None) -> list[dict]:
    """Per notebook: total points, points of tests that read a decisive fact, and which facts."""
    table = []
    for source in sources or notebooks.sources():
        rows = test_facts(source)
        resting = [r for r in rows if set(r["facts"]) - {PRECONDITION}]
        probed = [r for r in resting if set(r["facts"]) - {PRECONDITION, TENSOR_FACTS}]
        table.append({"notebook": source.assignment, "points": sum(r["points"] for r in rows),
                      "on_facts": sum(r["points"] for r in resting), "on_probes": sum(r["points"] for r in probed),
                      "tests": [(r["grade_id"], [f for f in r["facts"] if f != PRECONDITION]) for r in resting]})
    return table


def _short(fact: str) -> str:
    return fact.rpartition(":")[2] if ":" in fact else fact


def markdown(table: list[dict]) -> str:
    def pct(part, whole):
        return f"{part:g} ({100 * part / whole:.0f}%)" if whole else "0"

    total = sum(r["points"] for r in table)
    lines = ["| notebook | points | read any learner-reported fact | read a probe's result | tests and the facts they "
             "read |", "|---|---|---|---|---|"]
    for r in table:
        # by the names shown: the table does not move when a probe moves to another check module
        tests = "; ".join(f"`{g}`: " + ", ".join(f"`{n}`" for n in sorted(map(_short, facts)))
                          for g, facts in r["tests"])
        lines.append(f"| {r['notebook']} | {r['points']:g} | {pct(r['on_facts'], r['points'])} | "
                     f"{pct(r['on_probes'], r['points'])} | {tests or '—'} |")
    lines.append(f"| **course** | **{total:g}** | **{pct(sum(r['on_facts'] for r in table), total)}** | "
                 f"**{pct(sum(r['on_probes'] for r in table), total)}** | |")
    return "\n".join(lines)


def write(path, table) -> None:
    """Put the table between the markers of `path` (docs/threat-model.md)."""
    text = path.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    path.write_text(text[:start] + "\n" + markdown(table) + "\n" + text[end:])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.maintain.probe_share", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update the table in docs/threat-model.md")
    args = parser.parse_args(argv)
    import contextlib
    import io

    from autograder import paths
    from autograder.engine.sandbox import root

    root.prepare()
    with contextlib.redirect_stdout(io.StringIO()):  # the checks' own "passes" lines
        table = share()
    if args.write:
        write(paths.ROOT / "docs" / "threat-model.md", table)
    print(markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
