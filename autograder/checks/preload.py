"""The course's one preload entry point for the grading engine (`paths.COURSE_PRELOAD` names it): what the sandbox's
root process imports and builds once, before it forks any judge, so that every judge and learner copy inherits it.

- every module of the checks, family folders included: a probe or a stand-in ctx crosses to the learner's process
  by name ("module:qualname"), and there it must already be imported (the learner's copy reads no check's file);
- notebook 16's C++ kernel, built here if need be: the forks inherit it and never compile;
- the warm-ups the root runs for every notebook (`WARM_UPS`, names of autograder/engine/sandbox/warm.py's `RUN`).
"""

from __future__ import annotations

import importlib
import pkgutil

import autograder.checks
from autograder import kernels

# Eleven of the eighteen notebooks' tests ask for forward mode (0.3-0.5 s a notebook otherwise), and it adds little
# to what each fork inherits. opcheck's machinery (1-1.2 s, 60 MB) stays with the two notebooks that use it (or a
# class's root, which runs every warm-up), so a self-check of any other notebook does not wait for it.
WARM_UPS = ["forward-ad"]


def check_modules() -> list[str]:
    """Every module of the checks, by dotted name, found by walking the package (its family folders too)."""
    found = pkgutil.walk_packages(autograder.checks.__path__, "autograder.checks.")
    return sorted(m.name for m in found if not m.name.rpartition(".")[2].startswith("_"))


def preload() -> list[str]:
    """Load the kernel and import the checks; the warm-ups the root runs for every notebook."""
    try:
        kernels.load()
    except kernels.KernelsUnavailable:
        pass  # notebook 16's setup cell then fails, naming what is missing; the other notebooks grade as usual
    for name in check_modules():
        importlib.import_module(name)
    return list(WARM_UPS)
