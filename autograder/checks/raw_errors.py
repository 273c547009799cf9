"""The one place an error PyTorch (or Python) raises is recognised: its text, searched in the error and its causes,
names the mistake it stands for.

Several checks meet the same error (autograd's "returned an incorrect number of gradients", the in-place error,
torch.func's refusals): each reads it here, by its code, and words it for its own exercise (a `Rule` with
`error=` or `mistake=`, autograder/checks/explain.py). A phrase that only one check ever meets may stay in that
check's table as a `Rule` pattern. tests/core/test_error_recognition.py raises each error below on torch 2.13 and
holds every table to recognising it only here.

The named groups of a pattern are the error's facts (`position`, `got`, ...), and travel with the `Mistake`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Phrases the feedback quotes as well as recognises.
SETUP_CONTEXT_MSG = "must override the setup_context staticmethod"
NO_JVP_MSG = "You must implement the jvp function"


@dataclass(frozen=True)
class Raw:
    """An error as PyTorch raises it: a pattern searched in its text (or its causes'), or its own type."""

    code: str
    pattern: str | None = None
    types: tuple[type, ...] = ()


RAW = (
    Raw("not-implemented", types=(NotImplementedError,)),
    Raw("names-not-implemented", "NotImplementedError"),   # a wrapper's text naming it (opcheck, torch.compile)
    # What autograd's engine says about what a Function's backward returned.
    Raw("wrong-arity", r"returned an incorrect number of gradients \(expected (?P<expected>\d+), got (?P<got>\d+)\)"),
    Raw("missing-none", r"returned a gradient different than None at position (?P<position>\d+)(?!\d)"),
    Raw("wrong-grad-shape", r"returned an invalid gradient at index (?P<index>\d+) - got \[(?P<got>.*?)\] but "
                            r"expected shape compatible with \[(?P<expected>.*?)\]"),
    # Saved tensors, in-place changes, ctx.
    Raw("inplace-error", "modified by an inplace operation"),
    Raw("overlapping-write", "more than one element of the written-to tensor refers to a single memory location"),
    # a view made by a Function (an input returned as-is) whose base was changed in place, or being changed itself
    Raw("view-changed-in-place", "(?:has been|is being) modified inplace"),
    Raw("leaf-in-place", "leaf Variable that requires grad is being used in an in-place operation"),
    Raw("leaf-was-in-place", "a leaf Variable that requires grad has been used in an in-place operation"),
    Raw("dirty-not-returned", "marked as dirty during the forward method were not returned"),
    Raw("saved-a-float", "save_for_backward can only save variables"),
    Raw("no-graph", r"(?i)does not require grad"),
    Raw("not-differentiable", r"(?i)not differentiable"),
    # torch.func and a Function's own methods under it.
    Raw("no-setup-context", SETUP_CONTEXT_MSG),
    Raw("setup-context-missing", "setup_context is not implemented"),
    Raw("no-vmap-support", "does not have vmap support"),
    Raw("no-vmap-rule", "override the vmap staticmethod or set generate_vmap_rule=True"),
    Raw("no-jvp", NO_JVP_MSG),
    Raw("no-storage", "Cannot access data pointer of Tensor that doesn't have storage"),
    Raw("numpy-scalar", r"expected np\.ndarray"),
    # Python's own words for a call that does not fit.
    Raw("wrong-signature", "positional argument"),
    Raw("nothing-unpacked", r"not enough values to unpack \(expected \d+, got 0\)"),
    Raw("tuple-index", "tuple index out of range"),
    Raw("none-operand", r"unsupported operand type\(s\) for .*NoneType"),
    Raw("none-attribute", "NoneType' object has no attribute"),
    Raw("none-type", "NoneType"),
    # Shapes that do not broadcast.
    Raw("size-mismatch", "must match the size of tensor"),
    Raw("not-broadcastable", "is not broadcastable"),
    Raw("cannot-broadcast", "Attempting to broadcast"),
    Raw("shape-mismatch", "shape mismatch"),
    # Custom operators.
    Raw("no-autograd", "no autograd formula was registered"),
    Raw("no-fake-impl", "no fake impl"),
    Raw("no-meta-kernel", "Meta kernel"),
    Raw("fake-metadata", "mismatched tensor metadata"),
)
CODES = frozenset(raw.code for raw in RAW)
assert len(CODES) == len(RAW), "one entry a code"


def causes(error: BaseException, limit: int = 10) -> list[BaseException]:
    """`error` and the exceptions it was raised from or during, nearest first."""
    seen: list[BaseException] = []
    while error is not None and all(error is not e for e in seen) and len(seen) < limit:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def text(error: BaseException) -> str:
    return str(error)  # a Mistake's is its message


def recognise(error: BaseException) -> dict[str, dict]:
    """{code: facts} of every entry of RAW that recognises `error` (a type: the error itself is one; a pattern:
    found in the text of the error or of one of its causes, the nearest giving the facts)."""
    texts = None
    found = {}
    for raw in RAW:
        if raw.types and isinstance(error, raw.types):
            found[raw.code] = {}
        if raw.pattern is not None:
            texts = [text(e) for e in causes(error)] if texts is None else texts
            hit = next((m for m in (re.search(raw.pattern, t, re.S) for t in texts) if m), None)
            if hit is not None:
                found.setdefault(raw.code, {k: number(v) for k, v in hit.groupdict().items() if v is not None})
    return found


def says(error: BaseException, entry: str) -> bool:
    """Whether `error` is the raw error RAW names `entry` (for the few checks that wait for one)."""
    assert entry in CODES, entry
    return entry in recognise(error)


def number(value: str):
    return int(value) if value.lstrip("-").isdigit() else value
