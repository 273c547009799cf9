"""One way to turn an error into plain feedback: each check module's table of rules, tried in order.

A rule recognises an error (its exception type, a pattern searched in its text or in the text of its causes,
or a `Mistake` code another check already raised), names the mistake code it stands for, and holds the message
the learner reads: a template filled from `what` (the call being checked), `line` (the error's first line) and
the pattern's named groups. The named groups also travel as the `Mistake`'s `facts`, so a check that re-words
another check's mistake reads `mistake.facts["got"]`, never the message.

Positions count from 1 everywhere in the feedback (PyTorch counts from 1 in "at position" and from 0 in "at
index"): a rule's pattern names a 0-based group `index` and the rule reads `{position}`, which is index + 1.

    RULES = (
        Rule("missing-none", r"different than None at position (?P<position>\\d+)",
             "{what}: backward returned a gradient for input {position}, which is not a tensor. Return None."),
    )
    with explained("Square.backward", RULES):
        ...
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from autograder.engine.shared import Mistake


@dataclass(frozen=True)
class Rule:
    """An error this module recognises, the mistake code it stands for and what the learner reads."""

    code: str
    pattern: str | None = None          # a regular expression searched in the error's text (and its causes')
    message: str = ""                   # a str.format template: {what}, {line}, {text} and the named groups
    types: tuple[type, ...] = (Exception,)
    mistake: str | None = None          # matches a Mistake already raised with this code (re-wording it)
    when: Callable[[dict], bool] | None = None   # a further condition on the facts gathered so far
    facts: dict = field(default_factory=dict)    # constant facts this rule adds

    def match(self, error: BaseException) -> dict | None:
        """The facts of `error` if this rule recognises it, else None."""
        if self.mistake is not None:
            if not (isinstance(error, Mistake) and error.code == self.mistake):
                return None
            found = dict(error.facts)
        elif isinstance(error, Mistake) or not isinstance(error, self.types):
            return None
        else:
            found = {}
        if self.pattern is not None:
            texts = [_text(e) for e in causes(error)]
            hit = next((m for m in (re.search(self.pattern, t, re.S) for t in texts) if m), None)
            if hit is None:
                return None
            found.update({k: _number(v) for k, v in hit.groupdict().items() if v is not None})
        found.update(self.facts)
        for zero_based, counted in (("index", "position"), ("output", "output_position")):
            if isinstance(found.get(zero_based), int):
                found.setdefault(counted, found[zero_based] + 1)
        if self.when is not None and not self.when(found):
            return None
        return found


def causes(error: BaseException, limit: int = 10) -> list[BaseException]:
    """`error` and the exceptions it was raised from or during, nearest first."""
    seen: list[BaseException] = []
    while error is not None and all(error is not e for e in seen) and len(seen) < limit:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def explain(error: BaseException, what: str, rules: Iterable[Rule]) -> None:
    """Raise the Mistake of the first rule that recognises `error`; return if none does."""
    for rule in rules:
        found = rule.match(error)
        if found is None:
            continue
        text = _text(error)
        line = first_line(text)
        # The call's own names win over a fact of the same name (a pattern group called `what`, say).
        fields = {**found, "what": what, "line": line, "text": text, "kind": type(error).__name__}
        message = rule.message.format(**fields).strip()
        facts = {k: v for k, v in found.items()}
        raise Mistake(rule.code, message, **facts) from (None if isinstance(error, Mistake) else error)


@contextlib.contextmanager
def explained(what: str, rules: Sequence[Rule]):
    """Run the block; an error one of `rules` recognises becomes its Mistake, any other passes unchanged."""
    try:
        yield
    except Exception as error:  # noqa: BLE001 - every kind is offered to the rules, the rest re-raised
        explain(error, what, rules)
        raise


def literal(text: str) -> str:
    """`text` as a part of a message template (a hint with braces in it stays as written)."""
    return text.replace("{", "{{").replace("}", "}}")


def first_line(text: str, limit: int = 300) -> str:
    text = text.strip()
    return (text.splitlines()[0] if text else text)[:limit]


def _text(error: BaseException) -> str:
    return error.message if isinstance(error, Mistake) else str(error)


def _number(value: str):
    return int(value) if value.lstrip("-").isdigit() else value
