"""One way to turn an error into plain feedback: each check module's table of rules, tried in order.

A rule recognises an error and holds the message the learner reads: a template filled from `what` (the call
being checked), `line` (the error's first line), `input` (forward's input at the error's position) and the error's
facts. An error PyTorch raises is recognised once, in autograder/checks/raw_errors.py, which names its code and
facts: a rule asks for that code (`error=`, the raw error only; `mistake=`, the raw error or the `Mistake` of that
code another check already raised from it), and adds only its words, and its own code where its exercise has one.
A phrase only one check meets may be the rule's own `pattern`. The facts also travel as the `Mistake`'s `facts`,
so a check that re-words another check's mistake reads `mistake.facts["got"]`, never the message.

Positions count from 1 everywhere in the feedback (PyTorch counts from 1 in "at position" and from 0 in "at
index"): a rule's pattern names a 0-based group `index` and the rule reads `{position}`, which is index + 1.

    RULES = (
        Rule("grad-for-alpha", mistake="missing-none", when=lambda facts: facts["position"] == 2,
             message="{what}: backward returned a gradient for alpha, which is a Python float. Return None."),
    )
    with explained("Scale.backward", RULES):
        ...
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from autograder.checks import raw_errors
from autograder.checks.raw_errors import causes  # noqa: F401 - the checks read causes from here
from autograder.engine.shared import Mistake


@dataclass(frozen=True)
class Rule:
    """An error this module recognises, the mistake code it stands for and what the learner reads."""

    code: str
    pattern: str | None = None          # a phrase of this module's own, searched in the error's text (and its causes')
    message: str = ""                   # a str.format template: {what}, {line}, {text}, {input} and the facts
    types: tuple[type, ...] = (Exception,)   # what the raw error must be (a Mistake is matched by its code)
    mistake: str | None = None          # a Mistake already raised with this code, or the raw error of that code
    when: Callable[[dict], bool] | None = None   # a further condition on the facts gathered so far
    facts: dict = field(default_factory=dict)    # constant facts this rule adds
    error: str | tuple[str, ...] | None = None   # the raw error, as raw_errors.RAW names it (any of several)
    inputs: tuple[str, ...] = ()        # forward's inputs, in order: the error's position names one ({input})

    def __post_init__(self):
        unknown = set(self._errors()) - raw_errors.CODES
        assert not unknown, f"{self.code}: {sorted(unknown)} are not codes of raw_errors.RAW"

    def _errors(self) -> tuple[str, ...]:
        return (self.error,) if isinstance(self.error, str) else tuple(self.error or ())

    def match(self, error: BaseException, recognised: dict | None = None) -> dict | None:
        """The facts of `error` if this rule recognises it, else None (`recognised`: raw_errors.recognise(error))."""
        recognised = raw_errors.recognise(error) if recognised is None else recognised
        if isinstance(error, Mistake):
            if self.mistake is None or error.code != self.mistake:
                return None
            found = dict(error.facts)
        elif not isinstance(error, self.types) or (self.mistake is not None and self.mistake not in recognised):
            return None
        else:
            found = dict(recognised.get(self.mistake, {}))
        if self.error is not None:
            hit = next((recognised[c] for c in self._errors() if c in recognised), None)
            if hit is None:
                return None
            found.update(hit)
        if self.pattern is not None:
            texts = [raw_errors.text(e) for e in causes(error)]
            hit = next((m for m in (re.search(self.pattern, t, re.S) for t in texts) if m), None)
            if hit is None:
                return None
            found.update({k: raw_errors.number(v) for k, v in hit.groupdict().items() if v is not None})
        found.update(self.facts)
        for zero_based, counted in (("index", "position"), ("output", "output_position")):
            if isinstance(found.get(zero_based), int):
                found.setdefault(counted, found[zero_based] + 1)
        position = found.get("position")
        if self.inputs and isinstance(position, int) and 1 <= position <= len(self.inputs):
            found["name"] = self.inputs[position - 1]
        if self.when is not None and not self.when(found):
            return None
        return found


def explain(error: BaseException, what: str, rules: Iterable[Rule]) -> None:
    """Raise the Mistake of the first rule that recognises `error`; return if none does."""
    recognised = raw_errors.recognise(error)
    for rule in rules:
        found = rule.match(error, recognised)
        if found is None:
            continue
        text = raw_errors.text(error)
        line = first_line(text)
        # The call's own names win over a fact of the same name (a pattern group called `what`, say).
        fields = {**found, "what": what, "line": line, "text": text, "kind": type(error).__name__}
        if "position" in found:
            fields["input"] = f"input {found['position']}" + (f" ({found['name']})" if "name" in found else "")
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
