"""Calls sent ahead as one `calls` request (proxy.Link.send_ahead, learner_requests.op_calls): gradcheck's finite
differences of a learner's Function take one round trip where they took two, with the same verdicts; the learner
runs each call as a `call` would and stops where sequential calls would diverge; the judge reads the answer as
hostile (too many replies, wrong types, sizes that do not add up) and takes a reply only for the very request it
was sent for."""

from __future__ import annotations

import json

import pytest
import torch

from autograder.engine.sandbox import Job, Limits, codec, learner_requests, protocol, proxy

LIMITS = Limits(seconds_per_test=60)
SQUARE = """
import torch
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return SCALE * g * x
SCALE = 2
"""


def run(sandbox, answer: str, test: str):
    return sandbox.run(Job([("setup:setup_1", "import torch\n"), ("answer_Square", answer)], "test_batched",
                           test, limits=LIMITS))


def gradcheck_test(fast: bool) -> str:
    return f"""
x = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
try:
    torch.autograd.gradcheck(Square.apply, (x,), fast_mode={fast})
except Exception as error:
    raise AssertionError("gradcheck: " + str(error).splitlines()[0])
"""


@pytest.mark.parametrize("fast", [True, False])
def test_finite_differences_take_one_round_trip(sandbox, fast):
    outcome = run(sandbox, SQUARE, gradcheck_test(fast))
    assert outcome.status == "passed", outcome.feedback
    # fast: f(x), the difference (1 instead of 2), two vjps, the zero vjp, the undefined-grad call and vjp;
    # slow: the same with one difference per element (6) and a vjp per output element, twice (12)
    assert outcome.details["round_trips"] == (7 if fast else 1 + 6 + 12 + 1 + 2)


@pytest.mark.parametrize("fast", [True, False])
def test_a_wrong_backward_fails_as_before(sandbox, fast):
    outcome = run(sandbox, SQUARE.replace("SCALE = 2", "SCALE = 3"), gradcheck_test(fast))
    assert outcome.status == "failed" and "Jacobian mismatch" in outcome.feedback, outcome.feedback


RAISES_ON_PERTURBED = SQUARE.replace("        ctx.save_for_backward(x)\n", """        ctx.save_for_backward(x)
        if CALLS.append(1) or len(CALLS) == 2:
            raise ValueError("the second call fails")
""").replace("SCALE = 2", "SCALE = 2\nCALLS = []")


def test_a_call_that_raises_raises_where_it_did(sandbox):
    """The first difference's f(x - v) raises: the judge gets that error there, and f(x + v) never runs."""
    outcome = run(sandbox, RAISES_ON_PERTURBED, """
x = torch.randn(3, dtype=torch.float64, requires_grad=True)
try:
    torch.autograd.gradcheck(Square.apply, (x,), fast_mode=True)
except ValueError as error:
    assert "the second call fails" in str(error), error
else:
    raise AssertionError("no error")
assert Square.apply(x).shape == (3,)
""")
    assert outcome.status == "passed", outcome.feedback


MUTATES = SQUARE.replace("        return x * x\n", """        CALLS.append(1)
        out = x * x
        x.data.add_(1.0)
        return out
""").replace("SCALE = 2", "SCALE = 2\nCALLS = []\ndef calls():\n    return len(CALLS)")


def test_a_call_that_changes_its_inputs_ends_the_batch(sandbox):
    """f(x - v) changes x: the planned f(x + v) is not the call torch makes next, so the learner does not run
    it ahead; it runs once, when torch makes it: f(x), f(x - v), f(x + v), and the undefined-grad f(x)."""
    outcome = run(sandbox, MUTATES, """
x = torch.randn(3, dtype=torch.float64, requires_grad=True)
try:
    torch.autograd.gradcheck(Square.apply, (x,), fast_mode=True)
except Exception:
    pass
assert calls() == 4, calls()
""")
    assert outcome.status == "passed", outcome.feedback


# --------------------------------------------------------------------------- the learner's side, in process

def _encoded_calls(calls: list) -> tuple[dict, list]:
    """A `calls` request as Link.send_ahead frames it, for op_calls (each element: fn, args)."""
    listed, buffers = [], []
    for fn, args in calls:
        handle = learner_requests.handle_of(fn)
        index: dict = {}
        header, parts = codec.encode({"op": "call", "h": handle.id, "attr": None, "args": args, "kwargs": {},
                                      "grad": False, "record": False},
                                     tensor_tag=lambda t: {"arg": index.setdefault(id(t), len(index))})
        listed.append({"header": json.dumps(header), "buffers": len(parts)})
        buffers += parts
    return {"op": "calls", "calls": listed}, buffers


def _replies(message: dict, buffers: list, changed=lambda: []) -> list:
    replies, _ = learner_requests.op_calls(message, {}, [], buffers, _changed=changed)
    return [codec.decode(header, parts) for header, parts in replies.frames]


def test_each_call_runs_on_its_own_tensors_in_order():
    order = []

    def f(t):
        order.append(float(t.sum()))
        return t * 2

    message, buffers = _encoded_calls([(f, (torch.ones(2),)), (f, (torch.zeros(2),)), (f, (torch.full((2,), 3.),))])
    replies = _replies(message, buffers)
    assert order == [2.0, 0.0, 6.0]
    assert [r["ok"]["out"].tolist() for r in replies] == [[2, 2], [0, 0], [6, 6]]


def test_a_call_that_raises_ends_the_batch_with_its_error():
    def f(t):
        if float(t.sum()) == 0:
            raise KeyError("zero")
        return t

    message, buffers = _encoded_calls([(f, (torch.ones(2),)), (f, (torch.zeros(2),)), (f, (torch.ones(2),))])
    replies = _replies(message, buffers)
    assert len(replies) == 2 and "ok" in replies[0]
    assert replies[1]["error"]["base"] == "KeyError" and "zero" in replies[1]["error"]["message"]


def test_a_call_that_changes_its_input_or_trips_the_checkpoint_ends_the_batch():
    def mutate(t):
        t.add_(1)
        return t.clone()

    message, buffers = _encoded_calls([(mutate, (torch.ones(2),)), (mutate, (torch.ones(2),))])
    assert len(_replies(message, buffers)) == 1
    message, buffers = _encoded_calls([(torch.neg, (torch.ones(2),)), (torch.neg, (torch.ones(2),))])
    assert len(_replies(message, buffers, changed=lambda: ["torch.neg"])) == 1


def test_a_result_that_cannot_travel_is_that_calls_error():
    message, buffers = _encoded_calls([(lambda t: t.to_sparse(), (torch.ones(1),)), (torch.neg, (torch.ones(1),))])
    replies = _replies(message, buffers)
    assert len(replies) == 1 and "cannot be graded" in replies[0]["error"]["message"]


def test_the_batch_is_capped_in_length_and_in_bytes(monkeypatch):
    message, buffers = _encoded_calls([(torch.neg, (torch.ones(1),))] * (protocol.MAX_CALLS + 1))
    with pytest.raises(TypeError, match="malformed calls"):
        learner_requests.op_calls(message, {}, [], buffers)
    monkeypatch.setattr(learner_requests, "_MAX_CALLS_BYTES", 100)
    big = torch.zeros(20, dtype=torch.float64)  # 160 bytes a reply: the first always goes, the second not
    message, buffers = _encoded_calls([(torch.neg, (big,)), (torch.neg, (big,))])
    assert len(_replies(message, buffers)) == 1


def test_a_malformed_element_is_refused():
    message, buffers = _encoded_calls([(torch.neg, (torch.ones(1),))])
    message["calls"][0]["buffers"] = 5
    with pytest.raises(TypeError, match="malformed calls"):
        learner_requests.op_calls(message, {}, [], buffers)


# ------------------------------------------------------------------------------ the judge's side, hostile

class ScriptedChannel:
    """A channel whose learner answers with the frame it is given."""

    def __init__(self, header, buffers=()):
        self.reply, self.sent = (header, list(buffers)), []

    def send(self, header, buffers):
        self.sent.append((header, buffers))

    def recv(self):
        return self.reply


def _frame(value) -> tuple[dict, list]:
    return codec.encode(value)


def _answer(frames: list, listed=None) -> tuple[dict, list]:
    listed = listed if listed is not None else [{"header": json.dumps(h), "buffers": len(b)} for h, b in frames]
    header, _ = codec.encode({"ok": listed})
    buffers = [x for _, b in frames for x in b]
    return dict(header, sizes=[len(x) for x in buffers]), buffers


REMOTE_INFO = {"type": "method", "name": "apply", "attr": "apply"}


def _link(header, buffers=()):
    link = proxy.Link(ScriptedChannel(header, buffers))
    return link, proxy.Remote(link, 1, REMOTE_INFO)


def _two_calls(link, remote):
    return [link.planned_call(remote, (torch.ones(2, dtype=torch.float64),), {}),
            link.planned_call(remote, (torch.zeros(2, dtype=torch.float64),), {})]


def _ok(out):
    return {"ok": {"out": out, "graph": None, "changed": {}, "ctx": [], "bumped": [], "rebased": {}}}


def test_each_reply_is_taken_by_its_own_request_and_counts_one_round_trip():
    frames = [_frame(_ok(torch.full((2,), 7.0))), _frame(_ok(torch.full((2,), 8.0)))]
    link, remote = _link(*_answer(frames))
    link.send_ahead(_two_calls(link, remote))
    assert remote(torch.ones(2, dtype=torch.float64)).tolist() == [7.0, 7.0]
    assert remote(torch.zeros(2, dtype=torch.float64)).tolist() == [8.0, 8.0]
    assert link.requests == 1 and len(link.channel.sent) == 1


def test_a_reply_is_never_taken_by_another_request():
    frames = [_frame(_ok(torch.full((2,), 7.0))), _frame(_ok(torch.full((2,), 8.0)))]
    link, remote = _link(*_answer(frames))
    link.send_ahead(_two_calls(link, remote))
    link.channel.reply = _frame(_ok(torch.full((2,), 9.0)))
    # not the first call planned (other values): a round trip of its own, and the plan is dropped
    assert remote(torch.full((2,), 5.0, dtype=torch.float64)).tolist() == [9.0, 9.0]
    assert remote(torch.ones(2, dtype=torch.float64)).tolist() == [9.0, 9.0]
    assert link.requests == 3


def test_an_error_reply_is_raised_by_its_call_and_ends_the_plan():
    frames = [_frame({"error": {"type": "ZeroDivisionError", "base": "ZeroDivisionError", "message": "boom"}}),
              _frame(_ok(torch.full((2,), 8.0)))]
    link, remote = _link(*_answer(frames))
    link.send_ahead(_two_calls(link, remote))
    with pytest.raises(ZeroDivisionError, match="boom"):
        remote(torch.ones(2, dtype=torch.float64))
    link.channel.reply = _frame(_ok(torch.full((2,), 9.0)))
    assert remote(torch.zeros(2, dtype=torch.float64)).tolist() == [9.0, 9.0]  # asked again, not the planned 8
    assert link.requests == 2


def test_the_tampering_report_is_the_first_calls_reply():
    link, remote = _link(*_frame({"error": {"type": "Mistake", "base": "AssertionError", "message": "tampered",
                                            "where": "", "code": "tampering"}}))
    link.send_ahead(_two_calls(link, remote))
    with pytest.raises(proxy.Mistake) as raised:
        remote(torch.ones(2, dtype=torch.float64))
    assert raised.value.code == "tampering"


def test_fewer_replies_than_calls_leave_the_rest_to_their_own_round_trips():
    link, remote = _link(*_answer([_frame(_ok(torch.full((2,), 7.0)))]))
    link.send_ahead(_two_calls(link, remote))
    assert remote(torch.ones(2, dtype=torch.float64)).tolist() == [7.0, 7.0]
    link.channel.reply = _frame(_ok(torch.full((2,), 8.0)))
    assert remote(torch.zeros(2, dtype=torch.float64)).tolist() == [8.0, 8.0]
    assert link.requests == 2


ok_frame = _frame(_ok(torch.full((2,), 7.0)))
HOSTILE = {
    "too many replies": _answer([ok_frame] * 3),
    "not a list": (codec.encode({"ok": {"header": "{}", "buffers": 0}})[0], []),
    "a header that is not text": _answer([ok_frame], [{"header": {"v": 1}, "buffers": 1}]),
    "a count that is not an int": _answer([ok_frame], [{"header": json.dumps(ok_frame[0]), "buffers": 1.0}]),
    "an extra field": _answer([ok_frame], [{"header": json.dumps(ok_frame[0]), "buffers": 1, "x": 1}]),
    "buffers that do not add up": _answer([ok_frame], [{"header": json.dumps(ok_frame[0]), "buffers": 0}]),
    "a header that is not JSON": _answer([ok_frame], [{"header": "{", "buffers": 1}]),
    "a header without sizes": _answer([ok_frame], [{"header": json.dumps({"v": 1}), "buffers": 1}]),
    "sizes that lie": _answer([ok_frame], [{"header": json.dumps(dict(ok_frame[0], sizes=[3])), "buffers": 1}]),
    "no replies": _answer([], []),
    "too many for the protocol": _answer([ok_frame] * (protocol.MAX_CALLS + 1)),
}


@pytest.mark.parametrize("how", sorted(HOSTILE))
def test_a_hostile_answer_is_a_broken_protocol(how):
    link, remote = _link(*HOSTILE[how])
    with pytest.raises(proxy.BrokenProtocol):
        link.send_ahead(_two_calls(link, remote))


def test_a_hostile_reply_inside_is_read_as_any_reply():
    """A reply that passes the frame checks is decoded only when its call takes it, as any reply is."""
    bad = _frame({"ok": 1, "extra": 2})
    link, remote = _link(*_answer([bad]))
    link.send_ahead(_two_calls(link, remote))
    with pytest.raises(proxy.BrokenProtocol):
        remote(torch.ones(2, dtype=torch.float64))


def test_the_judge_sends_no_more_than_the_cap():
    link, remote = _link(*_answer([ok_frame]))
    with pytest.raises(ValueError):
        link.send_ahead(_two_calls(link, remote) * (protocol.MAX_CALLS // 2 + 1))
    assert not link.channel.sent
