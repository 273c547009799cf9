"""The course's grading package: checks, a sandboxed grader, and the instructor's tools (see cli.py)."""

__version__ = "0.1.0"
