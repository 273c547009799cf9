"""A table of cases judged each on its own (`checks.common.each`) has its requests planned across the cases
(engine/sandbox/plans.py `independent`): through a real sandbox, the same observations and the same first failure as
the plain loop, for honest, wrong, failing, input-changing and call-counting answers, in fewer round trips (the
learner's process runs every case's first request, then each case's calls again, each followed by its next request:
a backward comes right after its own case's forward, and an answer that keeps state between the two is graded as in
a loop; an answer whose forward counts its calls sees more of them); a case
that reads the learner's process's state (the record of its last call) runs live and reads its own call's record;
a plan's answer is hostile data as every reply is (another plan's answer, more replies than requests: refused)."""

from __future__ import annotations

import re

import pytest

from autograder.engine.sandbox import Limits, codec, proxy

LIMITS = Limits(seconds_per_test=60)

HEADER = """
import torch
CALLS, BACKWARDS = [0], []
def make(forward, backward):
    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            CALLS[0] += 1
            ctx.save_for_backward(x)
            return forward(x)
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return backward(x, g)
    return Fn
def raises_on_the_third_call(x):
    if CALLS[0] == 3:
        raise ValueError("third call")
    return x * x
SCALE = [1.0]
def keeps_its_scale_on_the_class(x):  # (zoo ScaleInplace/alpha_on_class's mistake: backward reads the last forward's)
    SCALE[0] = float(x.numel())
    return x * SCALE[0]
def mutating(x):
    x.data.add_(1.0)
    return x * x
"""
ANSWERS = {
    "honest": "Fn = make(lambda x: x * x, lambda x, g: 2 * x * g)",
    "wrong-derivative": "Fn = make(lambda x: x * x, lambda x, g: x * g)",
    "raises-on-a-later-call": "Fn = make(raises_on_the_third_call, lambda x, g: 2 * x * g)",
    "backward-raises": "Fn = make(lambda x: x * x, lambda x, g: 1 / 0)",
    "mutates-its-input": "Fn = make(mutating, lambda x, g: 2 * x * g)",
    "keeps-state-between-forward-and-backward": "Fn = make(keeps_its_scale_on_the_class, lambda x, g: g * SCALE[0])",
    "counts-its-calls": "Fn = make(lambda x: x * CALLS[0], lambda x, g: g * BACKWARDS.append(1) or g * len(BACKWARDS))",
}
TEST = """
from autograder.engine import shared
from autograder.checks import common as c
link = shared.learner()
seen = {{}}
def case(k):
    x = torch.linspace(-1.0, 1.0, k + 2, dtype=torch.float64).requires_grad_()
    y = Fn.apply(x)
    record = {record}
    (g,) = torch.autograd.grad(y, x, torch.ones_like(y))
    seen[k] = (y.detach().tolist(), g.tolist(), x.detach().tolist(), record)
    if k == {failing} and g[0] < -1.5:
        raise ValueError(f"case 3's verdict: {{g.tolist()}}")
before = link.requests
try:
    {loop}
    result = sorted(seen.items())
except Exception as error:
    result = f"{{type(error).__name__}}: {{error}}"
raise AssertionError(f"trips {{link.requests - before}}; result {{result!r}}")
"""
LOOPS = {"planned": "c.each(range(5), case)", "loop": "[case(k) for k in range(5)]"}


def table(sandbox, answer: str, loop: str, record: str = "None", failing: int = 3) -> tuple:
    """(round trips, what the table gave), from a fresh learner's copy."""
    outcome, = sandbox.run([("setup:setup_1", HEADER), ("answer_Fn", answer)],
                           [("test_table", TEST.format(loop=LOOPS[loop], record=record, failing=failing))], limits=LIMITS).outcomes
    found = re.search(r"trips (\d+); (result .*)", outcome.feedback, re.S)
    assert found, outcome.feedback
    return int(found.group(1)), found.group(2)


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_planned_table_gives_what_the_plain_loop_gives(sandbox, name):
    (planned_trips, planned), (loop_trips, loop) = table(sandbox, ANSWERS[name], "planned"), \
        table(sandbox, ANSWERS[name], "loop")
    assert planned == loop
    # at most the plan that met a call changing its inputs (it would stop every plan: the rest runs live) more
    assert planned_trips <= loop_trips + (name == "mutates-its-input")
    if name == "honest":  # five cases of a call and a backward, the fourth failing: two plans, not eight trips
        assert (planned_trips, loop_trips) == (2, 8), planned
        assert "case 3's verdict" in planned


def test_a_case_that_reads_the_record_of_its_call_runs_live_and_reads_its_own(sandbox):
    record = "link.record(after=True)"
    (planned_trips, planned), (loop_trips, loop) = table(sandbox, ANSWERS["honest"], "planned", record, None), \
        table(sandbox, ANSWERS["honest"], "loop", record, None)
    assert "'facts'" in planned
    assert planned == loop and loop_trips == 15
    assert planned_trips == 16  # (the first calls went in a plan before the record was known)


class _Answering:
    """A channel whose other end answers every frame with `message` (its buffers of the sizes it says)."""

    def __init__(self, message):
        self.message, self.sent = message, []

    def send(self, header, buffers):
        self.sent.append(header)

    def recv(self, deadline=None):
        return self.message, [bytes(n) for n in self.message["sizes"]]


REPLY = codec.encode({"ok": {"out": 1.0}})[0]


@pytest.mark.parametrize("answer", [{"plan": 2, "results": [REPLY], "sizes": []},
                                    {"plan": 1, "results": [REPLY] * 3, "sizes": []},
                                    {"plan": 1, "results": [REPLY], "sizes": [8]}],
                         ids=["another-plan's", "more-replies-than-requests", "buffers-unaccounted-for"])
def test_a_tables_plan_answered_out_of_schema_ends_the_test(answer):
    link = proxy.Link(_Answering(answer))
    remote = proxy.Remote(link, 1, {"type": "function", "name": "f"})
    with pytest.raises(proxy.BrokenProtocol):
        link.independent([lambda: remote(1.0), lambda: remote(2.0)])
    assert link.requests == 1 and len(link.channel.sent) == 1 and link.channel.sent[0]["plan"] == 1
    assert len(link.channel.sent[0]["steps"]) == 2
