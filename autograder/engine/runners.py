"""The in-process Runner (the sandbox is the other: sandbox/handle.py `Sandbox`; the interface and what a run
returns, `Graded`: sandbox/verdicts.py).

    InProcessRunner  this process, no isolation, no limits: for trusted code only (the instructor's reference
                     answers, the zoo in the fast tier, the bench's floor, the probe share, the self-check where
                     no sandbox can start). It keeps the sandbox's rules, so its verdicts are the sandbox's: each
                     test gets fresh state (the sandbox forks a copy of the answers' process per test; here the
                     setup and answer cells run again before each test), the test sees the answers' names under
                     the setup's (the judge binds its own setup names over the learner's), a broken setup cell
                     stops the cells after it, and what a cell raised becomes an Outcome through the same
                     `cells.describe` and `verdicts.answer_cell_cause`. There is no time limit: trusted code ends.
                     Its run has no isolation (`Graded.isolation` None).
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import time

from autograder.engine import shared
from autograder.engine.sandbox import cells
from autograder.engine.sandbox.cells import Outcome
from autograder.engine.sandbox.limits import Limits
from autograder.engine.sandbox.verdicts import Graded, Runner, answer_cell_cause, answer_cell_note


class InProcessRunner(Runner):
    """Trusted code in this process, with the sandbox's namespace rule and its outcomes (module docstring).

    `around_test(grade_id)`, if given, returns a context manager entered around each test cell alone (the
    probe share records there what a check reads). What the cells print is kept from this process's streams."""

    def __init__(self, around_test=None):
        self.around_test = around_test

    def run(self, before: list, tests: list, seed: int = 0, limits: Limits | None = None) -> Graded:
        attached, base = shared.learner(), shared.base_seed()
        # What lives here already, out of the collector's reach, as a grading root freezes its imports: a check's
        # full collection (behaviour.alive_after) then walks what the answers made, not this whole process.
        gc.freeze()
        outcomes, notes, output = [], [], ""
        try:
            for i, (grade_id, source) in enumerate(tests):
                outcome, failures, printed = self._test(before, grade_id, source, seed)
                if i == 0:
                    output = printed
                    notes = [answer_cell_note(f) for f in failures if not f["setup"]]
                outcomes.append(answer_cell_cause(outcome, failures))
        finally:
            shared.attach_learner(attached)
            shared.set_base_seed(base)
        return Graded(tuple(outcomes), tuple(notes), output)

    def _test(self, before: list, grade_id: str, source: str, seed: int) -> tuple[Outcome, list, str]:
        """One test on fresh state: (its outcome, the cells that raised, what the answers printed)."""
        start = time.perf_counter()
        streams = _Capped()
        with contextlib.redirect_stdout(streams), contextlib.redirect_stderr(streams):
            names, failures = _run_answers(before)
            answers_seconds = time.perf_counter() - start
            printed = streams.value()
            namespace = dict(names)
            namespace.update(_run_setup(before))  # the judge's own setup names win, as in the sandbox
            shared.attach_learner(None)  # no link: the learner's objects are this process's
            shared.set_base_seed(seed)
            code = cells.compile_cell(source, grade_id, ipython=False)
            shared.COMPILING[0] = 0.0
            begin = time.perf_counter()
            with self.around_test(grade_id) if self.around_test else contextlib.nullcontext():
                outcome = cells.run(code, namespace, grade_id, is_test=True) or Outcome("passed")
            check_seconds = time.perf_counter() - begin
        outcome.seconds = round(time.perf_counter() - start, 4)
        outcome.details["check_seconds"] = round(check_seconds, 4)
        outcome.details.setdefault("phases", {}).update(answers=round(answers_seconds, 4),
                                                        check=round(check_seconds, 4),
                                                        compile=round(shared.COMPILING[0], 4))
        return outcome, failures, printed


def _run_answers(before: list) -> tuple[dict, list]:
    """The learner's side (learner.run_cells, judge_learner's `_failures`): every cell compiled first, then run
    in order, a broken setup cell stopping the rest; the names the answer cells defined or changed, and each
    cell that raised (or did not compile), described as the judge describes it."""
    namespace = {"__name__": "__main__", "__builtins__": builtins.__dict__, "get_ipython": cells.NoIPython}
    compiled = [(label, cells.compile_cell(text, label)) for label, text in before]
    names = {}
    failures = [{"cell": label, "outcome": code, "setup": not label.startswith("answer")}
                for label, code in compiled if isinstance(code, Outcome)]  # (the judge lists these first)
    for label, code in compiled:
        if isinstance(code, Outcome):
            continue  # runs as an empty cell
        seen = dict(namespace)
        error = None
        try:
            exec(code, namespace)
        except BaseException as raised:  # noqa: BLE001 - every failure is an outcome
            error = raised
        if label.startswith("answer"):
            names.update({k: v for k, v in namespace.items() if k not in seen or seen[k] is not v})
        if error is not None:
            failures.append({"cell": label, "outcome": cells.describe(error, label, is_test=False),
                             "setup": not label.startswith("answer")})
            if not label.startswith("answer"):
                break
    return {k: v for k, v in names.items() if not k.startswith("__")}, failures


def _run_setup(before: list) -> dict:
    """The judge's side (judge.Judge._run_setup): the setup cells alone, each whatever the others did."""
    namespace = {"__name__": "__main__", "get_ipython": cells.NoIPython}
    for label, text in before:
        if not label.startswith("answer"):
            cells.run(cells.compile_cell(text, label), namespace, label)
    return namespace


class _Capped:
    """What the cells print, the last 4000 characters kept (as the sandbox reports the answers' output)."""

    LIMIT = 4000

    def __init__(self):
        self.text = ""

    def write(self, text) -> int:
        text = text if isinstance(text, str) else str(text)
        self.text = (self.text + text)[-self.LIMIT:]
        return len(text)

    def flush(self) -> None:
        pass

    def value(self) -> str:
        return self.text


__all__ = ["InProcessRunner"]
