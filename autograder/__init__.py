"""The course's grading package: checks, a sandboxed grader, and the instructor's tools (see cli.py)."""

import sys

__version__ = "0.1.0"

# jsonschema (under nbformat) imports the optional rfc3987_syntax when it is installed, which builds a parser
# at import: 1.1 s in every grading command. Notebook validation never checks IRI formats, so skip it.
sys.modules.setdefault("rfc3987_syntax", None)

# In a Jupyter kernel, the first import of the package (a lesson's figure, a visible test) starts the kernel's grading
# root in the background, so the learner's first self-check does not wait for its imports (selfcheck.py).
if "ipykernel" in sys.modules:
    from autograder.selfcheck import start_root_ahead

    start_root_ahead()
