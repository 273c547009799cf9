"""One mistake costs its own rule's points. Every zoo entry (tests/zoo/<Exercise>/<name>.py) is graded once, in this
process as the fast tier grades (tests/zoo_ledger.py), and every field of its header is checked together: the tests of
its exercise it fails (`# fails:`) and its score (`# score:`) exactly; its feedback phrase and codes; every failing
test blames its cause (`# code:` or `# family:`); and, where its exercise declares its rules (tests/zoo/rules.toml), it
loses only tests of the rule it names (`# rule:`; an answer with several independent mistakes names each), no more
than those rules' points, and no point of another exercise of its notebook (a test that checks one rule takes a
reference for everything else, the learner's helpers included).

No feedback message shows a line or an expression of a reference answer (solutions/, between BEGIN and END SOLUTION;
tests/zoo_ledger.py's `answer_code_in`): a message names the rule, so that a second attempt is not copying.

KNOWN_CASCADES lists the entries that still lose tests of another rule: each is expected to (strict), so fixing one
makes its line here fail until it is removed."""

from __future__ import annotations

import pytest

from autograder.engine.runners import InProcessRunner
from autograder.maintain import samples
from zoo_ledger import (ENTRIES, EXERCISE_TO_SOURCE, HONEST, RULES, answer_code_in, grade, honest_entry, reference_code,
                        verdict, whole_notebook)

pytestmark = pytest.mark.fast

KNOWN_CASCADES = {
    "Cube/forward_without_setup_context", "Cube/numpy_forward", "Cube/numpy_in_backward",
    "Cube/numpy_unless_wrapped", "LogSumExp/missing_nones", "LogSumExp/no_unsqueeze", "LogSumExp/saves_softmax",
    "LogSumExp/wrong_derivative", "SafeNorm/eps_in_sqrt",
    "Softplus/forward_uses_ctx", "checkpointed_mlp/detached_inputs", "checkpointed_mlp/late_bound_lambda",
    "checkpointed_mlp/no_grad_blocks",
}


def test_every_exercise_declares_rules_that_cover_its_tests_once():
    from autograder.engine import grading

    early = {g.removeprefix("answer_") for s in {id(s): s for s in EXERCISE_TO_SOURCE.values()}.values()
             if int(s.assignment[:2]) <= 14 and not s.assignment.startswith("11") for g in s.grade_ids("answer")}
    assert early <= set(RULES), f"declare the rules of {sorted(early - set(RULES))} in tests/zoo/rules.toml"
    for exercise, rules in RULES.items():
        _, tests = grading.plan(EXERCISE_TO_SOURCE[exercise], None)
        points = {g.removeprefix(f"test_{exercise}_"): p for g, p, _ in tests if g.startswith(f"test_{exercise}_")}
        named = [t for r in rules.values() for t in r.tests]
        assert sorted(named) == sorted(points), f"{exercise}: the rules name {sorted(named)}, its tests {sorted(points)}"
        wrong = {r.name: r.points for r in rules.values() if sum(points[t] for t in r.tests) != r.points}
        assert not wrong, f"{exercise}: rules whose points are not their tests' sum: {wrong}"
        assert samples.UNANSWERED not in rules


def test_every_entry_declares_its_header():
    missing = {f"{e.exercise}/{e.name}": [k for k, v in (("mistake", e.mistake), ("feedback", e.feedback),
                                                          ("code", e.codes), ("fails", e.fails), ("score", e.score),
                                                          ("rule", e.rule or e.exercise not in RULES)) if not v]
               for e in ENTRIES}
    missing = {k: v for k, v in missing.items() if v}
    assert not missing, f"add these header lines: {missing}"
    unknown = {f"{e.exercise}/{e.name}": e.rule for e in ENTRIES if e.exercise in RULES
               and (e.rule == "" or not set(e.rules) <= set(RULES[e.exercise]) | {samples.UNANSWERED}
                    or samples.UNANSWERED in e.rules and len(e.rules) > 1)}
    assert not unknown, f"`# rule:` names no rule of tests/zoo/rules.toml: {unknown}"
    assert all("not-implemented" in e.codes or "not-answered" in e.codes
               for e in ENTRIES if e.rule == samples.UNANSWERED), "only an unfilled answer loses every rule"
    stale = KNOWN_CASCADES - {f"{e.exercise}/{e.name}" for e in ENTRIES}
    assert not stale, f"KNOWN_CASCADES names no zoo entry: {stale}"


def test_the_header_is_read():
    text = "# mistake: m\n# code: a|b\n# rule: r\n# fails: x y\n# score: 3/4\n# family: c\nclass X:\n# score: 1/1\n"
    entry = samples.entry_of(samples.Path("zoo/X/x.py"), text)
    assert (entry.exercise, entry.codes, entry.rules, entry.fails, entry.score, entry.family) == (
        "X", ("a", "b"), ("r",), {"x", "y"}, (3.0, 4.0), {"c"})
    assert samples.entry_of(samples.Path("zoo/X/x.py"), "# mistake: m\n# rule: r s\n").rules == ("r", "s")
    assert samples.entry_of(samples.Path("zoo/X/x.py"), "# mistake: m\nclass X:\n    pass\n").score is None


REFERENCE = reference_code()
# Entries whose feedback still shows answer code (none: notebook 11's fake-kernel message now names the shape in
# words).
KNOWN_ANSWER_CODE: set = set()


def test_answer_code_is_recognised_in_a_message():
    assert len(REFERENCE[0]) > 100 and len(REFERENCE[1]) > 30
    leaked = "backward must scatter: torch.zeros_like(grad).scatter(-1, indices, grad), not gather."
    assert answer_code_in(leaked, REFERENCE) == ["_.zeros_like(_).scatter(-1,_,_)"]
    assert answer_code_in("the derivative of exp is exp: return grad_output * y.", REFERENCE)
    for rule_named in ("call ctx.mark_dirty(x) in forward and return x itself.",
                       "save the output with ctx.save_for_backward(y): its version counter guards it.",
                       "the derivative of exp(x) is exp(x), the saved output, times grad_output."):
        assert answer_code_in(rule_named, REFERENCE) == [], rule_named


def cascade(entry, graded) -> list[str]:
    """The points the entry loses outside its own rule ([] if none)."""
    if not whole_notebook(entry.exercise):
        return []
    problems = []
    others = graded.others_lost(entry.exercise)
    if others:
        problems.append(f"it loses other exercises' tests: { {g: r[3] for g, r in others.items()} }")
    if entry.rule == samples.UNANSWERED:
        return problems
    broken = [RULES[entry.exercise][name] for name in entry.rules]
    tests = frozenset().union(*(rule.tests for rule in broken))
    points = sum(rule.points for rule in broken)
    lost = graded.lost(entry.exercise)
    outside = sorted(set(lost) - tests)
    if outside:
        problems.append(f"it loses {outside}, tests of other rules than `{entry.rule}` ({sorted(tests)})")
    loss = sum(r[1] - r[0] for r in lost.values())
    if loss > points:
        problems.append(f"it loses {loss:g} points, its rule(s) `{entry.rule}` have {points:g}")
    return problems


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.exercise}/{e.name}" for e in ENTRIES])
def test_the_entry_scores_what_its_header_says(entry):
    graded = grade(entry, InProcessRunner())
    problems = verdict(entry, graded)
    lost = graded.lost(entry.exercise)
    codes = {r[3] for r in lost.values()}
    if not set(entry.codes) <= codes:
        problems.append(f"its `# code:` names {entry.codes}, the failing tests gave {sorted(codes)}")
    blamed = {t: r[3] for t, r in lost.items() if r[3] not in set(entry.codes) | entry.family}
    if blamed:
        problems.append(f"these failing tests blame another cause than {sorted(set(entry.codes) | entry.family)}: "
                        f"{blamed}")
    name = f"{entry.exercise}/{entry.name}"
    shown = {g: answer_code_in(r[4], REFERENCE) for g, r in graded.results.items() if r[2] != "passed"}
    shown = {g: code for g, code in shown.items() if code}
    if name in KNOWN_ANSWER_CODE:
        assert shown, f"{name}'s feedback no longer shows answer code: remove it from KNOWN_ANSWER_CODE"
    elif shown:
        problems.append(f"its feedback shows lines of the reference answer (name the rule instead): {shown}")
    spilled = cascade(entry, graded)
    if name in KNOWN_CASCADES:
        assert spilled, f"{name} no longer cascades: remove it from KNOWN_CASCADES"
        spilled = []
    assert not problems + spilled, f"{entry.path.name} ({entry.mistake}): " + "; ".join(problems + spilled)


@pytest.mark.parametrize("path", HONEST, ids=[f"{p.parent.name}/{p.stem}" for p in HONEST])
def test_an_honest_answer_scores_full_marks_in_process(path):
    """The in-process road for tests/honest/ (tests/more/test_honest.py grades them through the sandbox)."""
    entry = honest_entry(path)
    graded = grade(entry, InProcessRunner(), own_only=True)
    got, most = graded.score(entry.exercise)
    assert most > 0 and got == most, {t: r[3:] for t, r in graded.lost(entry.exercise).items()}
