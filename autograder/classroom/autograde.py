"""Grading a whole class: autograde every new or changed submission in parallel, write the gradebook once.

Workers only grade; this process alone writes results, one submission at a time, in the order: autograded
notebook, gradebook, report marker (last, atomically). A batch killed at any point leaves no marker for
unfinished work, so a rerun regrades exactly what is missing and overwrites (never adds) gradebook rows.

The class's other steps live beside it and are read here too, as they always were: the grading home and its
submissions (classroom.submissions), collecting a download (classroom.layouts), the gradebook
(classroom.gradebook).
"""

from __future__ import annotations

import concurrent.futures as futures
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.engine import grading, notebooks
from autograder.engine.notebooks import NotebookError, Source
from autograder.engine.sandbox import Limits, Runner
from autograder.classroom import lateness
from autograder.classroom.gradebook import GradebookWriter
from autograder.classroom.submissions import (HandIn, atomic_write, copy_submission_records, read_once, stat_of,
                                              autograded_dir, check_assignment, discover, home, marker_path,
                                              source_digests, up_to_date)


# ---------------------------------------------------------------------------------------------- work

_PARSED: dict = {}  # the sources' texts -> their Sources, parsed once per worker process


def _candidates(source_texts: dict[str, str]) -> list[Source]:
    key = tuple(sorted((p, hashlib.sha256(t.encode()).hexdigest()) for p, t in source_texts.items()))
    if key not in _PARSED:
        _PARSED[key] = [Source(Path(p), notebooks.parse(t, p)) for p, t in source_texts.items()]
    return _PARSED[key]


def grade_payload(runner: Runner, text: str, name: str, source_texts: dict[str, str], seed: int,
                  limits: Limits) -> dict:
    """Pure function run by a worker (a local thread, with the batch's runner; or a Dask worker on another machine,
    with its own: `grade_on_worker`): everything else it needs travels with it. Returns the JSON report and the
    autograded notebook as text."""
    candidates = _candidates(source_texts)
    try:
        report, autograded = grading.grade_text(text, name, runner, seed, limits, candidates)
    except NotebookError as error:
        source = next(s for s in candidates if Path(s.path).stem == Path(name).stem) if any(
            Path(s.path).stem == Path(name).stem for s in candidates) else candidates[0]
        report, autograded = unreadable_report(source, name, str(error))
    return {"report": report.to_json(), "autograded": nbformat.writes(autograded), "worker_pid": os.getpid()}


def unreadable_report(source: Source, name: str, reason: str):
    """A submission that cannot be read scores zero on every test, with the reason as feedback."""
    _, tests = grading.plan(source, None)
    cells = [grading.CellResult(gid, 0.0, pts, "error", reason, "unreadable") for gid, pts, _ in tests]
    report = grading.Report(Path(name).name, source.assignment, 0.0, sum(c.max_points for c in cells), cells)
    empty = nbformat.v4.new_notebook()
    return report, grading.autograded_notebook(source, empty, cells)


_WORKER_RUNNER: list = []  # a Dask worker's own sandbox: the batch's runner names the instructor's machine's paths


def grade_on_worker(*payload) -> dict:
    """grade_payload on a Dask worker, with the worker process's sandbox (made there, on first use: its protected
    paths are that machine's; the root it starts leaves with the worker)."""
    if not _WORKER_RUNNER:
        _WORKER_RUNNER.append(grading.new_sandbox(for_a_class=True).start())
    return grade_payload(_WORKER_RUNNER[0], *payload)


# ----------------------------------------------------------------------------------------------- batch

@dataclass
class BatchResult:
    graded: list[dict]
    skipped: int
    problems: list[dict]
    seconds: float


class WeakIsolation(RuntimeError):
    """A class would be graded without the strong layers of isolation, and nobody said that is fine."""


def require_isolation(runner: Runner, limits: Limits, allow_weak: bool):
    """The isolation `runner` gives a grading here (its probe); WeakIsolation if it lacks namespaces, the read-only
    root, Landlock or seccomp and `allow_weak` is not set."""
    isolation = runner.probe(limits).isolation
    if (isolation is None or not isolation.strong) and not allow_weak:
        layers = isolation.describe() if isolation is not None else "no sandbox"
        raise WeakIsolation(
            f"refusing to grade a class with weak isolation ({layers}): the "
            "verdicts would still be computed outside the learner's process, but its file, process and IPC "
            "rules are weaker (docs/threat-model.md, 'Levels of isolation'). Pass --allow-weak-isolation to "
            "grade anyway.")
    return isolation


def autograde(runner: Runner, workers: int = 1, scheduler: str | None = None, assignment: str | None = None,
              force: bool = False, seed: int | None = None, limits: Limits | None = None, db_url: str | None = None,
              progress: bool = True, allow_weak_isolation: bool = False, late_policy: str = "none",
              late_penalty: float = 0.0) -> BatchResult:
    """Grade every new or changed submission in submitted/ (or only `assignment`'s, which must be one of
    the course's: UnknownAssignment otherwise) into the gradebook, through `runner` (the caller's sandbox, made
    `for_a_class`, which the worker threads share; a Dask scheduler's workers each use their own). A
    submission collect recorded late loses
    what `late_policy` says (lateness.penalty: none, zero, or `late_penalty` points per started hour late);
    a change of policy or of lateness regrades it."""
    start = time.monotonic()
    seed = grading.base_seed() if seed is None else seed
    limits = limits or Limits()
    sources = notebooks.sources()
    check_assignment(assignment, sources)
    digests = source_digests(sources)
    subs, problems = discover(sources, assignment)
    # Each submission is read once: its bytes give the digest, the text graded, and (by their file's stat) the
    # proof at the end that nothing changed it meanwhile.
    contents = {s.key: read_once(s.path) for s in subs}
    shas = {key: hashlib.sha256(data).hexdigest() if data is not None else "" for key, (data, _) in contents.items()}
    policy = {"policy": late_policy, "per_hour": late_penalty}
    todo = [s for s in subs if force or not up_to_date(s, digests, shas[s.key]) or _late_changed(s, policy)]
    skipped = len(subs) - len(todo)
    if todo and not scheduler:
        runner.start()  # the sandbox's root imports PyTorch (4-5 s) while the gradebook opens
    # The gradebook's assignments, notebooks and cells (2-3 s of nbgrader's SaveCells on a new gradebook) are written
    # meanwhile, on a core the root's imports leave idle; the first result waits for them.
    opener = futures.ThreadPoolExecutor(max_workers=1)
    graded_assignments = {t.assignment for t in todo}
    opened = opener.submit(open_gradebook, db_url, [s for s in sources if s.assignment in graded_assignments])
    opener.shutdown(wait=False)
    if todo and not scheduler:
        try:
            require_isolation(runner, limits, allow_weak_isolation)
        except BaseException:
            opened.cancel()
            futures.wait([opened])  # a writer left running would race the next run's (the one-writer rule)
            raise
    source_texts = {str(s.path): s.path.read_text() for s in sources}
    by_assignment = {a: {p: t for p, t in source_texts.items() if Path(p).parent.name == a}
                     for a in {s.assignment for s in sources}}
    before = {s.key: shas[s.key] for s in todo}

    bar = _progress(len(todo), progress)
    graded = []
    writer = None

    def finish(sub: HandIn, payload: dict) -> None:
        report = payload["report"]
        report.update({"student": sub.student, "sources": digests[sub.assignment], "sha256": before[sub.key],
                       "file": sub.path.name})
        penalty = _apply_late_policy(report, lateness.read(sub.path.parent), policy)
        out_dir = autograded_dir() / sub.student / sub.assignment
        atomic_write(out_dir / f"{sub.notebook}.ipynb", payload["autograded"])
        copy_submission_records(sub.path.parent, out_dir)
        writer.record(sub.student, sub.assignment, sub.notebook, payload["autograded"], penalty)
        atomic_write(marker_path(sub), json.dumps(report, indent=1))
        graded.append(report)
        if bar is not None:
            bar.update(1)
            bar.write(f"  {sub.student:>16}  {sub.notebook:<28} {report['score']:>5g} / {report['max_score']:<4g}"
                      f" ({report['seconds']:.1f} s)")

    def payload_for(sub: HandIn) -> tuple:
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

    def prepare_gradebook() -> None:  # the first submissions are graded meanwhile
        nonlocal writer
        writer = opened.result()

    # The worker threads wait on the roots, then need the GIL at once to hand a root its next notebook; the main
    # thread meanwhile holds it for the gradebook's ORM work. Handing the GIL over every 0.5 ms instead of
    # Python's 5 ms keeps the roots busy: a class graded 6-8% sooner (make bench).
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        if scheduler:
            _run_dask(scheduler, todo, payload_for, finish, prepare_gradebook)
        else:
            with futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
                pending = {pool.submit(grade_payload, runner, *payload_for(s)): s
                           for s in heaviest_first(todo, sources)}
                try:
                    prepare_gradebook()
                except BaseException:  # no gradebook, no batch: do not grade the rest first
                    for future in pending:
                        future.cancel()
                    raise
                for done in futures.as_completed(pending):
                    finish(pending[done], done.result())
    finally:
        sys.setswitchinterval(switch_interval)
        if bar is not None:
            bar.close()
    for sub in todo:  # the grader never changes a submission: prove it (without reading it again)
        if stat_of(sub.path) != contents[sub.key][1]:
            raise RuntimeError(f"{sub.path} changed while being graded")
    _write_problems(problems)
    return BatchResult(graded, skipped, problems, time.monotonic() - start)


def _late_changed(sub: HandIn, policy: dict) -> bool:
    """Whether `sub`'s grade was given under another late policy or lateness than now (so it is given again)."""
    try:
        data = json.loads(marker_path(sub).read_text())
    except (OSError, ValueError):
        return True
    now = lateness.read(sub.path.parent)
    return data.get("late_policy", {"policy": "none", "per_hour": 0.0}) != policy or \
        data.get("lateness", {"late": False}) != now


def _apply_late_policy(report: dict, late: dict, policy: dict) -> float:
    """The report's score after `policy` for a submission that is `late` (nbgrader's raw_score, penalty,
    score), recorded in the report; returns the penalty."""
    raw = report["score"]
    penalty = lateness.penalty(late, raw, policy["policy"], policy["per_hour"])
    report.update({"raw_score": raw, "late_penalty": penalty, "score": raw - penalty, "lateness": late,
                   "late_policy": policy})
    return penalty


def open_gradebook(db_url: str | None, sources: list[Source]) -> GradebookWriter:
    """The gradebook's writer, with `sources`' assignments, notebooks and grade cells in it."""
    writer = GradebookWriter(db_url)
    writer.ensure_assignments(sources)
    return writer


def heaviest_first(todo: list[HandIn], sources: list[Source]) -> list[HandIn]:
    """The submissions with the most test cells first (in their order otherwise): the last ones the workers take are
    then the short ones, so no worker idles long while another finishes a long notebook."""
    tests = {s.assignment: len(s.grade_ids("test")) for s in sources}
    return sorted(todo, key=lambda sub: -tests.get(sub.assignment, 0))


def _run_dask(address: str, todo: list[HandIn], payload_for, finish, prepare_gradebook) -> None:
    from distributed import Client, as_completed

    with Client(address, timeout="30s") as client:
        pending = {client.submit(grade_on_worker, *payload_for(s), pure=False, key=f"grade-{s.key}-{time.time()}"): s
                   for s in todo}
        try:
            prepare_gradebook()
        except BaseException:
            client.cancel(list(pending))
            raise
        for future in as_completed(pending):
            finish(pending[future], future.result())


class _Lines:
    """The progress of a batch where stderr is no terminal (a log, CI): its lines, without a bar's redraws."""

    def update(self, n: int) -> None:
        pass

    def write(self, line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool):
    if not enabled or total == 0:
        return None
    if not sys.stderr.isatty():
        return _Lines()
    from tqdm import tqdm

    return tqdm(total=total, unit="nb", desc="autograding", dynamic_ncols=True)


def _write_problems(problems: list[dict]) -> None:
    atomic_write(home() / "problems.json", json.dumps(problems, indent=1))


def reports() -> list[dict]:
    """Every graded report on disk (the class's results, with mistakes, for reports and exports)."""
    out = []
    for marker in sorted(autograded_dir().glob("*/*/*.grade.json")):
        try:
            out.append(json.loads(marker.read_text()))
        except ValueError:
            continue
    return out
