"""Where things live. Everything is relative to the project root, so the CLI works from any directory."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"      # instructor sources (nbgrader's "source" folder)
COURSE = ROOT / "course"            # student release (nbgrader's "release" folder), generated
ZOO = ROOT / "tests" / "zoo"        # realistic wrong answers, one file per mistake
# Answer keys kept with the instructor's sources, never in the package (students' installs leave them behind).
DECISIONS_KEY = SOLUTIONS / "decisions_key.json"
DEBUGGING_KEY = SOLUTIONS / "debugging_key.json"
ANSWER_KEYS = {"00_when_to_write_one": DECISIONS_KEY, "15_debugging": DEBUGGING_KEY}  # assignment -> its key

# Grading state (gradebook, submissions, autograded copies, feedback, exports): one git-ignored folder.
# AUTOGRADER_HOME moves it, e.g. for tests or for a class of one's own.
def grading_home() -> Path:
    return Path(os.environ.get("AUTOGRADER_HOME", ROOT / ".grading")).resolve()

# What the course gives the grading engine, which names no path of the course itself: the module whose `preload()`
# the sandbox's root calls once (the checks, notebook 16's kernel, the warm-ups), and the judge-only folders the
# learner's process may never read, wherever the package lies.
COURSE_PRELOAD = "autograder.checks.preload"
# The course's modules the sandbox names by address, declared here beside its entry point so that the engine spells
# none itself: the checks' package (functions and classes sent by name; every module of it watched), its shared
# probes' module (a registry compared entry by entry), and the probes that record every ordinary call.
CHECKS = "autograder.checks"
CHECKS_COMMON = "autograder.checks.common"
RECORD_DESCRIBE = "autograder.checks.behaviour.record:describe_call"
RECORD_AFTER = "autograder.checks.behaviour.record:after_call"
JUDGE_ONLY = (Path(__file__).resolve().parent / "references",)
