"""Plans: the judge's next requests to the learner's process, predicted and sent in one frame, answered in one.

A round trip per request is a protocol choice, not part of the trust model: the learner's process sees each
request it runs, in the order the judge makes them, whether they come one by one or together, and its replies
are read as they always are. So where the judge can say beforehand what it will ask (gradcheck's fast mode: the
function at x and at x +- eps u for each input, then backward with v, zeros, an undefined gradient), it sends those
requests as a plan (protocol.PLAN_FRAME); the learner's side runs them in order, stopping after the first that
raises or changes its inputs, and answers once. The judge's own code then runs exactly as before (torch's own
gradcheck, on the proxies): each request it makes that is, byte for byte, the next one planned takes that planned
reply (decoded and checked as a live reply is); any other goes to the learner's process as it always did. A plan
predicted wrong costs round trips, never a verdict: every verdict comes from the judge's code on the learner's
own replies.

    Link.gradcheck_plan(fn, inputs, options)   the plans of one fast-mode gradcheck, taken by torch's gradcheck
        1. the calls: fn at every point fast mode evaluates it (each request captured by running fn here up to
           its first request, which is then not sent)
        2. the backward passes: fn's output at x (from plan 1's reply) differentiated as fast mode does, here, with
           every vjp request recorded and answered with nothing; then sent
    Link.slow_gradcheck_plan(check, fn, inputs, options)   the slow mode's, which explains a failure: fn at x, then
        fn at x -+ eps along every element (a dry run answering every call with fn at x's reply records them), then
        the first output's Jacobian rows, twice (a dry run on the real replies)
"""

from __future__ import annotations

import contextlib
import json

import torch

from autograder.engine.sandbox import protocol

LEGACY = torch.legacy_contiguous_format


class Captured(BaseException):
    """A request taken instead of sent (a BaseException: the checks' `except Exception` lets it through)."""

    def __init__(self, request: tuple):
        super().__init__("captured")
        self.request = request


def key(header: dict, buffers: list) -> tuple:
    """A request's identity: its header and its bytes, exactly."""
    return json.dumps(header, sort_keys=True), b"".join(buffers), tuple(len(b) for b in buffers)


class Capture:
    """The link's mode while a request is captured: the first request fn makes ends fn's run here."""

    def take(self, header: dict, buffers: list, message: dict, tensors: list):
        raise Captured((header, buffers))


class Replay:
    """Replies to planned requests, in the order the judge's code will make them: a request that is the next one
    planned takes its reply; any other goes live (and the plan waits for its next request)."""

    def __init__(self, planned: list):
        self.planned = list(planned)  # [(request (header, buffers), reply (header, buffers))]
        self.taken = 0

    def take(self, header: dict, buffers: list, message: dict, tensors: list):
        if self.planned and key(*self.planned[0][0]) == key(header, buffers):
            self.taken += 1
            return "frame", self.planned.pop(0)[1]
        return None


class Dry:
    """A dry run on planned replies: calls take them (decoded afresh), vjps are recorded and answered with
    nothing (no gradient, no change); any other request ends the run."""

    def __init__(self, calls: list):
        self.calls = list(calls)
        self.recorded: list = []
        self.before_call: list = []  # for each call taken, how many vjps were recorded before it

    def take(self, header: dict, buffers: list, message: dict, tensors: list):
        if message.get("op") == "vjp":
            self.recorded.append((header, buffers))
            return "value", {"grads": [None] * len(tensors), "graph": None, "changed": {}, "bumped": []}
        if self.calls and key(*self.calls[0][0]) == key(header, buffers):
            self.before_call.append(len(self.recorded))
            return "frame", self.calls.pop(0)[1]
        raise Captured((header, buffers))


@contextlib.contextmanager
def mode(link, plans):
    previous, link.plans = link.plans, plans
    try:
        yield plans
    finally:
        link.plans = previous


def capture(link, fn, args: tuple):
    """The first request fn(*args) makes, not sent; None if it makes none (or fails before)."""
    with mode(link, Capture()):
        try:
            fn(*args)
        except Captured as taken:
            return taken.request
        except Exception:  # noqa: BLE001 - fn fails here without the learner: gradcheck meets it live
            return None
    return None


def _unit(numel: int, dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    """torch's fast gradcheck's random direction (gradcheck._vec_from_tensor, a dense real tensor)."""
    vec = torch.rand(numel, generator=generator).to(dtype=dtype)
    vec /= vec.norm()
    return vec


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def gradcheck_points(inputs: tuple, eps: float) -> tuple[list, list] | None:
    """(the differentiable inputs' directions u, every point where fast mode evaluates fn after fn(*inputs)), as
    torch 2.13's _fast_gradcheck draws and perturbs them; None where fast mode would not run as planned."""
    diff = [(i, t) for i, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not diff or any(t.is_complex() or t.layout != torch.strided or not t.is_floating_point() for _, t in diff):
        return None
    generator = torch.Generator()  # gradcheck's own, freshly seeded: the same u and v every run
    us = [_unit(t.numel(), t.dtype, generator) for _, t in diff]
    points = []
    for (i, t), u in zip(diff, us):
        step = eps * u.reshape(t.shape)
        orig = t.detach().clone()
        for moved in (orig - step, orig + step):  # (gradcheck: entry.copy_(orig - v), then orig + v)
            point = t.detach().clone()
            with torch.no_grad():
                point.copy_(moved)
            points.append(inputs[:i] + (point.requires_grad_(True),) + inputs[i + 1:])
    return us, points


def _dry_vjps(link, fn, inputs: tuple, us: list, first: tuple, undefined: tuple | None) -> tuple[list, int]:
    """(the vjp requests fast mode makes after its calls, in its order, from the planned replies of fn(*inputs);
    how many of them come before its second call of fn at x, the undefined-gradient check's)."""
    dry = Dry([first] + ([undefined] if undefined else []))
    diff = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    with mode(link, dry):
        try:
            outputs = tuple(o for o in _as_tuple(fn(*inputs)) if o.requires_grad)
            if not outputs:
                return [], 0
            generator = torch.Generator()
            for u in us:  # the generator where gradcheck draws v: after every u
                _unit(u.numel(), u.dtype, generator)
            for output in outputs:
                v = _unit(output.numel(), output.dtype, generator)
                for _ in range(2):  # the analytical v^T J, twice (reentrancy)
                    torch.autograd.grad(output, diff, v.reshape(output.shape), retain_graph=True, allow_unused=True)
            torch.autograd.grad(outputs, diff, [torch.zeros_like(o, memory_format=LEGACY) for o in outputs],
                                allow_unused=True)  # backward multiplied by grad_output
            if undefined:  # every output's gradient undefined
                again = [torch._C._functions.UndefinedGrad()(o) for o in _as_tuple(fn(*inputs))
                         if o.requires_grad and isinstance(o, torch.Tensor)]
                torch.autograd.grad(again, diff, [torch.zeros_like(o, memory_format=LEGACY) for o in again],
                                    allow_unused=True)
        except (Captured, Exception):  # noqa: BLE001 - what was recorded before is still the prefix fast mode makes
            pass
    split = dry.before_call[1] if len(dry.before_call) > 1 else len(dry.recorded)
    return dry.recorded, split


@contextlib.contextmanager
def gradcheck_plan(link, fn, inputs, options: dict):
    """torch's fast-mode gradcheck of fn at `inputs` (run within) takes its requests' replies from two plans."""
    inputs = _as_tuple(inputs)
    if link.plans is not None:  # within another plan's run (a case of `independent`): its requests are that plan's
        yield
        return
    drawn = gradcheck_points(inputs, options.get("eps", 1e-6))
    undefined = options.get("check_undefined_grad", True)
    calls = None
    points = [inputs] + drawn[1] + ([inputs] if undefined else []) if drawn is not None else []
    if 0 < len(points) <= protocol.MAX_PLAN_STEPS:
        calls = [capture(link, fn, point) for point in points]
    if calls is None or any(c is None for c in calls):
        yield  # (no plan, or one longer than the protocol takes: one request at a time, as before)
        return
    answered = link.send_plan(calls)
    planned = answered
    if len(answered) == len(calls):
        vjps, split = _dry_vjps(link, fn, inputs, drawn[0], answered[0], answered[-1] if undefined else None)
        vjps = link.send_plan(vjps[:protocol.MAX_PLAN_STEPS]) if vjps else []  # (any further: live)
        # in fast mode's order: the calls, the vjps at x, then (undefined) the call again and its vjp
        cut = len(answered) - (1 if undefined else 0)
        planned = answered[:cut] + vjps[:split] + answered[cut:] + vjps[split:]
    with mode(link, Replay(planned)):
        yield


class DryCalls:
    """A dry run in which every call takes one reply (the call at x's, decoded afresh) and is recorded; any other
    request ends the run. The slow mode's numerical Jacobian evaluates fn at points that do not depend on what fn
    returned, so this run records its requests exactly."""

    def __init__(self, reply: tuple):
        self.reply = reply
        self.recorded: list = []

    def take(self, header: dict, buffers: list, message: dict, tensors: list):
        if message.get("op") != "call":
            raise Captured((header, buffers))
        self.recorded.append((header, buffers))
        return "frame", self.reply


def _send_in_plans(link, requests: list) -> list:
    answered: list = []
    for at in range(0, len(requests), protocol.MAX_PLAN_STEPS):
        chunk = link.send_plan(requests[at:at + protocol.MAX_PLAN_STEPS])
        answered += chunk
        if len(chunk) < len(requests[at:at + protocol.MAX_PLAN_STEPS]):
            break  # the learner's side stopped (a request raised or changed its inputs): the rest goes live
    return answered


def _dry(link, plans, check, fn, inputs, options) -> None:
    """`check` run here against `plans` (nothing reaches the learner's process), the inputs as they were after."""
    saved = [(t, t.detach().clone()) for t in inputs if isinstance(t, torch.Tensor)]
    rng = torch.get_rng_state()
    with mode(link, plans):
        try:
            check(fn, inputs, **options)
        except (Captured, Exception):  # noqa: BLE001 - the run ends where the plan cannot answer
            pass
    torch.set_rng_state(rng)
    with torch.no_grad():
        for tensor, before in saved:
            if tensor.shape == before.shape and tensor.dtype == before.dtype:
                tensor.copy_(before)


@contextlib.contextmanager
def slow_gradcheck_plan(link, check, fn, inputs, options: dict):
    """torch's slow-mode gradcheck of fn at `inputs` (run within: it explains a failure) takes its requests' replies
    from plans: fn at x (one round trip), then fn at x -+ eps along every element of every input (the numerical
    Jacobian, recorded by a dry run in which every call returns fn at x's reply), then the first output's rows of the
    analytical Jacobian, twice (recorded by a dry run on the real replies, whose vjps are answered with nothing: the
    mismatch that follows ends it). Anything else, or a count of calls other than one evaluation a point, goes live."""
    inputs = _as_tuple(inputs)
    diff = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    if link.plans is not None or not diff or any(t.is_complex() or t.layout != torch.strided for t in diff):
        yield
        return
    first = capture(link, fn, inputs)
    if first is None:
        yield
        return
    at_x = link.send_plan([first])
    if len(at_x) != 1:
        with mode(link, Replay(at_x)):
            yield
        return
    calls = DryCalls(at_x[0][1])
    _dry(link, calls, check, fn, inputs, options)
    points = 1 + 2 * sum(t.numel() for t in diff)
    if len(calls.recorded) != points or key(*calls.recorded[0]) != key(*first):
        with mode(link, Replay(at_x)):
            yield
        return
    answered = at_x + _send_in_plans(link, calls.recorded[1:])
    planned = answered
    if len(answered) == points:
        vjps = Dry(answered)
        _dry(link, vjps, check, fn, inputs, options)
        # the first output's rows, twice: what the slow mode asks whatever they turn out to be (a second output's
        # only if the first one's matched)
        planned = answered + _send_in_plans(link, vjps.recorded[:2 * _first_output_numel(link, fn, inputs, at_x)])
    with mode(link, Replay(planned)):
        yield


def _first_output_numel(link, fn, inputs: tuple, at_x: list) -> int:
    """How many elements fn's first differentiable output at x has (from the planned reply of fn at x)."""
    with mode(link, Dry(at_x)):
        try:
            outputs = [o for o in _as_tuple(fn(*inputs)) if isinstance(o, torch.Tensor) and o.requires_grad]
        except (Captured, Exception):  # noqa: BLE001
            return 0
    return outputs[0].numel() if outputs else 0
