"""What runs a notebook's tests (`Runner`), what the run comes to (`Graded`), and the words for an answer cell that
raised, which the judge and the in-process runner both use. Each type converts itself to and from the wire
(`to_wire`, `from_wire`): the judge sends `Graded.to_wire()`, the grader reads `Graded.from_wire` (protocol-checked),
grading turns each Outcome into a CellResult (grading.CellResult.from_outcome)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from autograder.engine.sandbox import protocol
from autograder.engine.sandbox.cells import Outcome
from autograder.engine.sandbox.isolation import Isolation
from autograder.engine.sandbox.limits import Limits


@dataclass(frozen=True)
class Graded:
    """One notebook's run: an Outcome per test (in order), the notes the learner should read although no test
    failed, what the answer cells printed, and the isolation that held them (None where no sandbox did: the
    in-process runner, or a judge that failed)."""
    outcomes: tuple[Outcome, ...]
    notes: tuple[str, ...] = ()
    output: str = ""
    isolation: Isolation | None = None

    def to_wire(self) -> dict:
        """protocol.py's `graded`."""
        wire = {"outcomes": [o.to_wire() for o in self.outcomes], "notes": list(self.notes), "output": self.output}
        if self.isolation is not None:
            wire["isolation"] = self.isolation.to_wire()
        return wire

    @classmethod
    def from_wire(cls, message, tests: int) -> "Graded":
        """The judge's `graded` reply to a job of `tests` test cells; ProtocolError if it is not one."""
        graded = protocol.check("graded", message)
        if len(graded["outcomes"]) != tests:
            raise protocol.ProtocolError(f"{len(graded['outcomes'])} outcomes for {tests} tests")
        isolation = graded.get("isolation")
        return cls(tuple(Outcome.from_wire(o) for o in graded["outcomes"]), tuple(graded["notes"]), graded["output"],
                   Isolation.from_wire(isolation) if isolation is not None else None)

    @classmethod
    def failed(cls, tests: int, why: str) -> "Graded":
        """The grader's own failure on a notebook: every test says so, for the instructor."""
        return cls(tuple(Outcome("error", f"the grader failed on this notebook ({why}); tell your instructor.",
                                 "grader-error") for _ in range(tests)))


class Runner(ABC):
    """Runs one notebook's tests: the sandbox (handle.Sandbox), for every learner's code; or this process, for
    trusted code only (runners.InProcessRunner). Every grading entry point takes one, from the caller that made
    it and closes it."""

    @abstractmethod
    def run(self, before: list, tests: list, seed: int = 0, limits: Limits | None = None) -> Graded:
        """`before` [(label, source)]: setup and answer cells in order; `tests` [(grade_id, source)]."""

    def probe(self, limits: Limits | None = None) -> Graded:
        """An empty notebook's run (one test, `pass`), before any answer runs: whether a grading starts under
        `limits` here, and the isolation it gets (its `isolation`)."""
        return self.run([], [("isolation", "pass\n")], 0, limits)

    def start(self) -> "Runner":
        return self

    def close(self) -> None:
        """Nothing to release by default."""

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()


def clip(text: str, limit: int = protocol.MAX_FEEDBACK) -> str:
    return text if len(text) <= limit else text[:limit - 20] + " [... cut here]"


def answer_cell_note(failure: dict) -> str:
    """The note on an answer cell that raised (its tests may still pass on the names it defined first)."""
    return clip(f"your answer cell `{failure['cell']}` raised an error after defining its names: "
                f"{failure['outcome'].feedback}")


def answer_cell_cause(outcome: Outcome, failures: list) -> Outcome:
    """A name the test could not find because its answer cell raised first: that error is the cause. Only
    the feedback changes, and only for a test that did not pass; the status stays the judge's."""
    answer_failures = [f for f in failures if not f["setup"]]
    setup_failures = [f for f in failures if f["setup"]]
    if setup_failures and outcome.status != "passed":
        f = setup_failures[0]
        return Outcome("error", clip(f"a setup cell of the course failed ({f['outcome'].feedback}); tell your "
                                     "instructor."), "setup-error", details=outcome.details)
    if answer_failures and outcome.status != "passed" and outcome.mistake in ("not-defined", "name-error"):
        f = answer_failures[0]
        cause = f["outcome"]
        return Outcome(cause.status, clip(f"your answer cell `{f['cell']}` raised an error: {cause.feedback}"),
                       cause.mistake or "exception", details=outcome.details)
    return outcome
