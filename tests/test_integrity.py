"""The sandbox's integrity check (snapshot/changed): it sees replaced objects, and its fast path (dict
version tags) is really taken, so an unchanged namespace costs no copy-on-write faults in a forked test."""

import torch

from autograder import sandbox
from autograder.checks import common


def test_version_tags_work_on_this_interpreter():
    assert sandbox._TAGS_WORK, "dict version tags unreadable: every check falls back to the slow full scan"


def test_unchanged_namespaces_are_reused_not_rescanned():
    base = sandbox.snapshot()
    again = sandbox.snapshot(base)
    assert sandbox.changed(base, again) == []
    assert again[("module", "torch")] is base[("module", "torch")]
    assert again[("class", "torch.Tensor")] is base[("class", "torch.Tensor")]


def test_replaced_module_attribute_class_member_and_function_code_are_reported(monkeypatch):
    base = sandbox.snapshot()
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(torch.Tensor, "add", lambda *a, **k: None)
    monkeypatch.setattr(common.require_close, "__code__", (lambda *a, **k: None).__code__)
    found = sandbox.changed(base, sandbox.snapshot(base))
    assert "torch.allclose" in found
    assert "torch.Tensor.add" in found
    assert "autograder.checks.common.require_close (its code or defaults)" in found
    monkeypatch.undo()
    assert sandbox.changed(base, sandbox.snapshot(base)) == []


def test_a_changed_then_restored_namespace_is_rescanned_and_found_clean():
    base = sandbox.snapshot()
    original = torch.nn.functional.relu
    torch.nn.functional.relu = None
    torch.nn.functional.relu = original  # the dict's tag moved on; its contents are as before
    after = sandbox.snapshot(base)
    assert after[("module", "torch.nn.functional")] is not base[("module", "torch.nn.functional")]
    assert sandbox.changed(base, after) == []


def test_keys_of_a_students_own_class_are_compared_by_identity_only():
    """A key whose __hash__/__eq__ is student code (and may answer differently each call) must never be
    asked anything while the check compares namespaces."""
    calls = []

    class Key:
        def __hash__(self):
            calls.append("hash")
            return 12345

        def __eq__(self, other):
            calls.append("eq")
            return other is self

    namespace = {"allclose": 1}
    namespace[Key()] = 2
    calls.clear()
    names, _ = sandbox._namespace_ids(namespace)
    assert len(names) == 2 and all(type(n) in (str, int) for n in names)
    before = {("module", "m"): sandbox._namespace_ids(namespace)}
    namespace["allclose"] = 3
    after = {("module", "m"): sandbox._namespace_ids(namespace)}
    assert sandbox.changed(before, after) == ["m.allclose"]
    assert calls == []
