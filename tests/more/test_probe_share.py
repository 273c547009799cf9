"""The share of points resting on learner-reported facts (autograder/maintain/probe_share.py) is measured, and the
table in docs/threat-model.md is the measurement."""

from __future__ import annotations

import contextlib
import io

import pytest

from autograder.engine import notebooks
from autograder import paths
from autograder.maintain import probe_share

pytestmark = pytest.mark.xdist_group("probe-share")
SOURCES = {s.assignment: s for s in notebooks.sources()}


def test_the_recording_sees_the_facts_a_check_reads():
    rows = {r["grade_id"]: r["facts"] for r in probe_share.test_facts(SOURCES["01_square"])}
    assert probe_share.TENSOR_FACTS in rows["test_Square_graph"]  # the node's type is the learner's fact
    assert not set(rows["test_Square_values"]) - {probe_share.PRECONDITION}, rows  # values: the judge's own
    assert not any(r["facts"] for r in probe_share.test_facts(SOURCES["00_when_to_write_one"]))


def test_the_committed_table_is_a_fresh_measurement():
    with contextlib.redirect_stdout(io.StringIO()):
        table = probe_share.share()
    text = (paths.ROOT / "docs" / "threat-model.md").read_text()
    committed = text[text.index(probe_share.BEGIN) + len(probe_share.BEGIN):text.index(probe_share.END)]
    assert committed.strip() == probe_share.markdown(table).strip(), \
        "the share changed: run `python -m autograder.maintain.probe_share --write` and read what moved"
