"""One mistake, one rule's points: every zoo entry fails exactly the tests of the rule it breaks, and every test it
fails names the same cause.

Each zoo entry (tests/zoo/<Exercise>/<name>.py) declares, beside its `# mistake:`, `# feedback:` and `# code:`, the
tests of its exercise it fails (`# fails: values gradcheck`, the grade ids' suffixes after `test_<Exercise>_`) and,
where a test reaches the same cause by another road (a version counter that stayed put, where the cause is a
missing ctx.mark_dirty), the other codes that cause may carry (`# family: code|code`); its `# score:` is what
follows (tests/core/test_zoo_scores.py checks it). Every test of the exercise runs here, in-process (the fast tier's
way, tests/core/test_fast.py): a test failed that is not declared is a cascade, a declared one that passes is a stale
header, and a failing test whose mistake code is neither the entry's nor of its family blames another cause.

A test checks one rule and takes a reference for the parts it does not test (as notebook 12's Linear tests run the
learner's module on a reference LinearFunction when the learner's own is wrong). CAPS holds the entries issue 26
named as costing a whole exercise, with the most tests each may now fail."""

from __future__ import annotations

import pytest

from autograder.engine import grading, notebooks
from autograder.maintain import samples

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}
ENTRIES = samples.zoo()

# (exercise, zoo entry) -> the most tests it may fail (it used to fail every test of its exercise, or most).
CAPS = {
    ("SumDim", "no_unsqueeze"): 1,
    ("Linear", "no_bias_attribute"): 1,
    ("ScaleInplace", "no_mark_dirty"): 1,
    ("unbroadcast", "sum_empty_tuple"): 1,
    ("numpy_sin", "no_register_fake"): 1,
    ("numpy_sin", "no_register_autograd"): 1,
    ("numpy_sin", "wrong_backward"): 1,
    ("numpy_sin", "numpy_scalar"): 1,
    ("Cube", "wrong_derivative"): 2,           # values, and jacrev (the Jacobian of a cube is its derivative)
    ("Cube", "detach_in_backward"): 1,
    ("Softplus", "no_jvp"): 2,                 # jvp, and jacfwd (vmap of jvp)
    ("Softplus", "detach_in_backward"): 1,
}
# The exercises of notebooks 00-14 (issue 26's): each of their zoo entries declares what it fails. A zoo folder of a
# later notebook that declares nothing yet is skipped, and named by the skip.
EARLY = {g.removeprefix("answer_") for s in SOURCES.values() if int(s.assignment[:2]) <= 14
         for g in s.grade_ids("answer")}


def header(entry, key: str) -> str:
    for line in entry.source.splitlines():
        if not line.startswith("# "):
            break
        name, _, value = line[2:].partition(":")
        if name.strip() == key:
            return value.strip()
    return ""


def declared(entry) -> tuple[set[str], set[str]]:
    """(the test suffixes the entry declares it fails, the codes its family may carry besides `# code:`)."""
    fails = set(header(entry, "fails").split())
    family = {c.strip() for c in header(entry, "family").split("|") if c.strip()}
    return fails, family


def outcomes(entry) -> dict[str, tuple[str, str]]:
    """{test suffix: (mistake code, feedback)} of the tests of the entry's exercise it fails, run in-process."""
    from helpers import run_in_process

    source = EXERCISE_TO_SOURCE[entry.exercise]
    _, nb = samples.student_notebook(source.assignment, {entry.exercise: entry.source})
    before, tests = grading.plan(source, nb)
    tests = [t for t in tests if t[0].startswith(f"test_{entry.exercise}_")]
    return {g.removeprefix(f"test_{entry.exercise}_"): (o.mistake, o.feedback)
            for g, o in run_in_process(before, tests) if o.status != "passed"}


def undeclared_folder(exercise: str) -> bool:
    return exercise not in EARLY and not any(declared(e)[0] for e in ENTRIES if e.exercise == exercise)


def test_every_entry_declares_what_it_fails():
    assert len(EARLY) == 29 and EARLY <= {e.exercise for e in ENTRIES}
    missing = [f"{e.exercise}/{e.name}" for e in ENTRIES if not declared(e)[0] and not undeclared_folder(e.exercise)]
    assert not missing, f"add a `# fails:` header (the tests the mistake breaks) to {missing}"
    unknown = {}
    for e in ENTRIES:
        _, tests = grading.plan(EXERCISE_TO_SOURCE[e.exercise], None)
        own = {t[0].removeprefix(f"test_{e.exercise}_") for t in tests if t[0].startswith(f"test_{e.exercise}_")}
        if declared(e)[0] - own:
            unknown[f"{e.exercise}/{e.name}"] = sorted(declared(e)[0] - own)
    assert not unknown, f"`# fails:` names tests the exercise does not have: {unknown}"


def test_the_named_cascades_are_gone():
    entries = {(e.exercise, e.name): e for e in ENTRIES}
    over = {key: sorted(declared(entries[key])[0]) for key, cap in CAPS.items() if len(declared(entries[key])[0]) > cap}
    assert not over, f"these entries may fail no more than {CAPS} tests: {over}"


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.exercise}/{e.name}" for e in ENTRIES])
def test_one_mistake_costs_its_own_points(entry):
    if undeclared_folder(entry.exercise):
        pytest.skip(f"tests/zoo/{entry.exercise}/ declares no `# fails:` headers yet")
    fails, family = declared(entry)
    lost = outcomes(entry)
    cascade = {t: lost[t] for t in sorted(set(lost) - fails)}
    assert not cascade, (f"{entry.path.name} ({entry.mistake}) also fails tests of other rules: "
                         f"{ {t: code for t, (code, _) in cascade.items()} }: give them a reference for the part "
                         f"they do not test, or add them to its `# fails:` header if they test its rule")
    stale = sorted(fails - set(lost))
    assert not stale, f"{entry.path.name}: its `# fails:` header names {stale}, which it passes"
    causes = set(entry.codes) | family
    other = {t: code for t, (code, _) in lost.items() if code not in causes}
    assert not other, (f"{entry.path.name}: these failing tests blame another cause than {sorted(causes)}: {other}")
