"""make test-torch's pieces that need no second release: the requirements it installs next to another torch,
and the cell-by-cell comparison of two runs (autograder/maintain/compat.py)."""

import subprocess
import sys

from autograder.maintain import compat
from helpers import ROOT


def test_requirements_keep_every_pin_but_torch():
    out = subprocess.run([sys.executable, "tools/requirements.py", "--extra", "test", "--without", "torch"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert not [r for r in out if r.lower().startswith("torch")]
    assert "nbclient==0.11.0" in out and "pytest==9.2.0" in out


def _record(torch, cells):
    return {"torch": torch, "notebooks": {"13_safe_gradients": {"seconds": 1.0, "cells": cells}}}


def test_compare_names_the_cells_that_differ():
    same = {"id": "demo-3", "index": 3, "status": "ok", "error": None, "output": "x"}
    pinned = _record("2.13.0", [same, {"id": "demo-9", "index": 9, "status": "ok", "error": None, "output": "a"},
                                {"id": "demo-11", "index": 11, "status": "ok", "error": None, "output": "1"}])
    other = _record("2.14.1", [same, {"id": "demo-9", "index": 9, "status": "error", "output": "a",
                                      "error": "AssertionError: (at: assert torch.isnan(gg).all())"},
                               {"id": "demo-11", "index": 11, "status": "ok", "error": None, "output": "2"}])
    report, raising = compat.compare(pinned, other)
    assert raising == ["13_safe_gradients/demo-9"]
    assert "| 13_safe_gradients | `demo-9` | runs | raises `AssertionError: (at: assert torch.isnan(gg).all())` |" in report
    assert "### 13_safe_gradients · `demo-11`" in report and "-1\n+2" in report
    assert "demo-3" not in report


def test_volatile_output_is_masked():
    assert compat.mask("captured in 1.3 s at 0x7f12ab34cd") == "captured in … s at 0x…"
    assert compat.mask("torch 2.14.1+cu130") == "torch <version>"
