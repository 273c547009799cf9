"""One Isolation value (sandbox/isolation.py): built from the sandbox's plain facts, `strong` and the level it
amounts to computed here (never read off the wire), in the same words wherever a level is reported or required."""

from __future__ import annotations

import pytest

from autograder.engine.sandbox import Isolation

STRONG = {"level": "full", "namespaces": True, "identity": "grader's", "read_only_root": True, "folder_quota": True,
          "own_proc": True, "memory_cgroup": "grading-1", "landlock": 7, "seccomp": True}


def test_the_wire_round_trip_keeps_every_reported_fact_and_adds_strong():
    assert Isolation.from_wire(STRONG).to_wire() == dict(STRONG, strong=True)
    assert Isolation.from_wire({}).to_wire() == {"strong": False}  # nothing reported: nothing claimed


@pytest.mark.parametrize("forged", [
    dict(STRONG, read_only_root=False, strong=True),       # a `strong` that the layers do not make
    dict(STRONG, namespaces="yes"),                        # a fact of the wrong type counts as unreported
    dict(STRONG, landlock=True),                           # a bool is no ABI version
    dict(STRONG, seccomp=1),
])
def test_strong_is_computed_from_the_layers_never_taken_at_face_value(forged):
    isolation = Isolation.from_wire(forged)
    assert not isolation.strong and isolation.to_wire()["strong"] is False


def test_an_undeclared_fact_is_left_out():
    assert "root" not in Isolation.from_wire(dict(STRONG, root=True)).to_wire()


@pytest.mark.parametrize("layers, reached, full_ok, no_namespaces_ok", [
    (STRONG, "full", True, True),
    (dict(STRONG, read_only_root=False), "full", True, True),   # Gradescope's full: no read-only root needed
    (dict(STRONG, namespaces=False), "no-namespaces", False, True),
    (dict(STRONG, namespaces=False, seccomp=False), "none", False, False),
    ({}, "none", False, False),
])
def test_the_level_the_layers_amount_to(layers, reached, full_ok, no_namespaces_ok):
    isolation = Isolation.from_wire(layers)
    assert isolation.reached == reached
    assert isolation.at_least("full") is full_ok and isolation.at_least("no-namespaces") is no_namespaces_ok
    assert isolation.at_least("none") and not isolation.at_least("some level")


def test_the_words_name_each_layer():
    assert Isolation.from_wire(STRONG).describe() == "namespaces, a read-only root, Landlock 7, seccomp"
    refused = Isolation.from_wire({"namespaces": False, "namespaces_refused": "EPERM", "landlock": 0})
    assert refused.describe() == "no namespaces (EPERM), no read-only root, no Landlock, no seccomp"


def test_the_value_is_frozen():
    with pytest.raises(AttributeError):
        Isolation.from_wire(STRONG).seccomp = False
