"""Grading with the verdict outside the learner's process. One or two files per process role:

    grader (handle.py: `Sandbox`)
      └─ root (root.py): imports PyTorch and the checks once; never runs learner code
           └─ judge (judge.py), a fork per notebook: runs each test cell from the same fresh state and
              │  computes every verdict, against proxies of the learner's objects (proxy.py); its side of the
              │  learner's sandbox (judge_learner.py: start it, read its reports, stop it)
              └─ learner (learner.py): its starter, its sandbox (namespaces; a reaper as PID 1), the template
                 │  that runs the setup and answer cells once
                 └─ a copy per test (learner_requests.py `serve`), answering the judge's requests

Between them: `protocol` (every message kind, declared once, with its validator), `channel` (frames) and
`codec` (values and tensors as plain data, sizes capped), `mirror` (in-place effects and identity on both
sides). Around the learner: `confine` (namespaces, rlimits, Landlock, seccomp), `integrity` (its checkpoint
before each reply), `limits` (what a grading may use, every deadline named), `cells` (running cells,
describing what they raised). What a grading returns: `verdicts` (`Runner`, which `Sandbox` is, and its
`Graded`, an Outcome per test), `isolation` (the layers a notebook had, once).
"""

from autograder.engine.sandbox.cells import STATUSES, Outcome
from autograder.engine.sandbox.isolation import Isolation
from autograder.engine.sandbox.limits import Limits
from autograder.engine.sandbox.verdicts import Graded, Runner
from autograder.engine.sandbox.handle import Sandbox

__all__ = ["Graded", "Isolation", "Limits", "Outcome", "Runner", "Sandbox", "STATUSES"]
