"""Grading with the verdict outside the learner's process.

    grader ── root (imports torch once) ── a zygote per worker thread (a fork; never runs learner code)
                                              └─ judge, per notebook (runs the test cells; computes every verdict)
                                                    └─ learner process, confined (setup + answer cells, once)
                                                          └─ one copy per test, answering the judge over a socket

Modules: `limits` (what a grading may use), `confine` (rlimits, Landlock, seccomp), `codec` and `channel`
(values and tensors as plain data), `learner` (the confined side), `integrity` (its one checkpoint before
each reply), `proxy` (the learner's objects as seen by the judge), `cells` (running cells, describing what
they raised), `judge` (one notebook), `zygote` (the root and the zygotes; the grader's `Sandbox`).
"""

from autograder.sandbox.cells import STATUSES, Outcome
from autograder.sandbox.limits import Job, Limits
from autograder.sandbox.zygote import Sandbox

__all__ = ["Job", "Limits", "Outcome", "Sandbox", "STATUSES"]
