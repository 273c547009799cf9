"""The course's grading package: checks, a sandboxed grader, and the instructor's tools (see cli.py)."""

import sys

__version__ = "0.1.0"

# jsonschema (under nbformat) imports the optional rfc3987_syntax when it is installed, which builds a parser
# at import: 1.1 s in every grading command. Notebook validation never checks IRI formats, so skip it.
sys.modules.setdefault("rfc3987_syntax", None)
