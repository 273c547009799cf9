"""Notebook 00: the graded feedback on DECISIONS names each wrong scenario and the question to reconsider, never
the right label, its reason or the confusion sentence aimed at it (the practice quiz's `explain` gives those): a
second attempt then rests on the reasoning, not on a label copied from the feedback."""

from __future__ import annotations

import re

import pytest

from autograder.checks import common as c
from autograder.checks import decisions

pytestmark = pytest.mark.fast

KEY = decisions.answer_key()
RIGHT = {key: right for key, (right, _) in KEY["scenarios"].items()}


def _feedback(key: str, chosen: str) -> str:
    answer = dict(RIGHT, **{key: chosen})
    number = next(n for n, keys in decisions.GROUPS.items() if key in keys)
    with pytest.raises(c.Mistake) as failed:
        decisions.group(answer, number)
    return str(failed.value)


CASES = [(key, chosen) for key in RIGHT for chosen in decisions.LABELS if chosen != RIGHT[key]]


@pytest.mark.parametrize("key, chosen", CASES, ids=[f"{k}-{w}" for k, w in CASES])
def test_a_wrong_label_is_named_without_the_right_one(key, chosen):
    right, why = KEY["scenarios"][key]
    message = _feedback(key, chosen)
    specific = message.replace(decisions.REREAD, "")   # the closing advice is the same for every scenario
    assert f"'{key}'" in message and f"'{chosen}'" in message
    assert not re.search(rf"\b{re.escape(right)}\b", specific, re.I), specific
    assert decisions.LABELS[right] not in message and why not in message
    confusion = KEY["confusions"].get((right, chosen))
    assert confusion is None or confusion not in message


def test_the_reference_passes_every_group():
    for number in decisions.GROUPS:
        decisions.group(dict(RIGHT), number)
