"""Checks for the course's exercises: one module per exercise family, shared pieces in `common`.

Visible test cells call them in the learner's kernel; the autograder calls the same functions in an
isolated process. Every check raises `Mistake` with plain-words feedback, or returns quietly.
"""

from autograder.checks.common import Mistake

__all__ = ["Mistake"]
