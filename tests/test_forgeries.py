"""Answers written to pass the grader's calls rather than to do what the exercise asks: each tells the grader's
requests from real use (a functorch-wrapped input, a non-leaf input), or hides what it keeps for backward from
the grader's measurement (its own saved-tensor hooks, a tensor in a list on ctx). Each must lose the points of
the rule it dodges, with feedback that names the rule; the score it gets is pinned below.

In-process (the fast tier) for every forgery; through the real grader (judge and learner) for a few."""

from __future__ import annotations

import textwrap

import pytest

from autograder import grading, notebooks, samples
from autograder.sandbox import Limits

SOURCES = {s.assignment: s for s in notebooks.sources()}
EXERCISE_TO_SOURCE = {g.removeprefix("answer_"): s for s in SOURCES.values() for g in s.grade_ids("answer")}

WRAPPED = """
import torch._C._functorch as _functorch


def _wrapped(t):
    return _functorch.is_batchedtensor(t) or _functorch.is_gradtrackingtensor(t) \\
        or _functorch.is_functorch_wrapped_tensor(t)
"""

# notebook 10: the notebook-01 style, which torch.func refuses, and plain torch operations whenever the input
# is one of torch.func's wrappers.
CUBE = WRAPPED + """

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2

    @classmethod
    def apply(cls, x):
        if _wrapped(x):
            return x ** 3
        return super().apply(x)
"""

# notebook 10: no jvp at all (so no forward mode), and the same detour.
SOFTPLUS = WRAPPED + """

class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @classmethod
    def apply(cls, x):
        if _wrapped(x):
            return torch.nn.functional.softplus(x)
        return super().apply(x)
"""

# notebook 14: no jvp, no vmap rule, and torch.logsumexp itself whenever the input is wrapped.
LOGSUMEXP = WRAPPED + """

class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        m = m.masked_fill(m.isinf(), 0.0)
        out = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
        return out if keepdim else out.squeeze(dim)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim, ctx.keepdim = dim, keepdim
        ctx.save_for_backward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out = out.unsqueeze(ctx.dim)
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output * torch.exp(x - out), None, None

    @classmethod
    def apply(cls, x, dim, keepdim):
        if _wrapped(x):
            return torch.logsumexp(x, dim, keepdim)
        return super().apply(x, dim, keepdim)
"""

# notebook 04: keeps a copy of the output (so a change of the output goes unnoticed), and raises autograd's
# in-place error by itself whenever its input is a non-leaf that nobody changed.
EXP = """
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y.clone())
        ctx.inputs = [x, x._version]
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        x, version = ctx.inputs
        if x.grad_fn is not None and x._version == version:
            raise RuntimeError("one of the variables needed for gradient computation has been modified by an "
                               "inplace operation: [torch.DoubleTensor [6]] is at version 1; expected version 0")
        return grad_output * y
"""

# notebook 08: the plain loop under its own saved-tensor hooks (innermost, so they win over the grader's), and a
# hook that runs every layer once when backward starts.
MLP = """
def checkpointed_mlp(x, layers):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        h = x
        for layer in layers:
            h = F.silu(layer(h))

    def rerun(grad):
        with torch.no_grad():
            for layer in layers:
                layer(torch.zeros(layer.in_features, dtype=layer.weight.dtype))
        return grad

    if h.requires_grad:
        h.register_hook(rerun)
    return h
"""

# notebook 08: the same, with the hooks keeping the tensors in a list of their own (the graph holds numbers).
MLP_STORE = """
_kept = []


def _pack(t):
    _kept.append(t)
    return len(_kept) - 1


def checkpointed_mlp(x, layers):
    with torch.autograd.graph.saved_tensors_hooks(_pack, lambda i: _kept[i]):
        h = x
        for layer in layers:
            h = F.silu(layer(h))

    def rerun(grad):
        with torch.no_grad():
            for layer in layers:
                layer(torch.ones(layer.in_features, dtype=layer.weight.dtype))
        return grad

    if h.requires_grad:
        h.register_hook(rerun)
    return h
"""

# notebook 08: sigmoid(x) kept for backward in a list on ctx, where a look for tensor attributes misses it.
SILU = """
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = torch.sigmoid(x)
        ctx.cache = [s]
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        (s,) = ctx.cache
        return grad_output * (s + x * s * (1 - s))
"""

# notebook 14: the softmax kept for backward in a dict on ctx.
LOGSUMEXP_CACHE = """
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        m = m.masked_fill(m.isinf(), 0.0)
        out = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
        return out if keepdim else out.squeeze(dim)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim, ctx.keepdim = dim, keepdim
        full = output if keepdim else output.unsqueeze(dim)
        ctx.cache = {"p": torch.exp(x - full)}
        ctx.save_for_backward(x, output)
        ctx.save_for_forward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            grad_output = grad_output.unsqueeze(ctx.dim)
        # recomputed only when a second derivative is wanted
        p = torch.exp(x - (out if ctx.keepdim else out.unsqueeze(ctx.dim))) if torch.is_grad_enabled() \
            else ctx.cache["p"]
        return grad_output * p, None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out = out.unsqueeze(ctx.dim)
        return (torch.exp(x - out) * x_t).sum(dim=ctx.dim, keepdim=ctx.keepdim)
"""

# (exercise, answer, tests that must be lost (grade_id suffixes), a phrase of their feedback, the score)
FORGERIES = {
    "cube-detour": ("Cube", CUBE, {"gradgradcheck", "vmap", "grad", "jacrev"}, "setup_context", 1),
    "softplus-detour": ("Softplus", SOFTPLUS, {"jvp", "jacfwd", "hessian", "vmap"}, "jvp", 2),
    "logsumexp-detour": ("LogSumExp", LOGSUMEXP, {"vmap", "forward_mode"}, "jvp", 8),
    "exp-nonleaf": ("Exp", EXP, {"saves_output", "inplace_output"}, "", 2),
    "mlp-own-hooks": ("checkpointed_mlp", MLP, {"memory"}, "kept", 2),
    "mlp-own-store": ("checkpointed_mlp", MLP_STORE, {"memory"}, "kept", 2),
    "silu-list-on-ctx": ("RecomputeSiLU", SILU, {"saved"}, "ctx.cache", 3),
    "logsumexp-dict-on-ctx": ("LogSumExp", LOGSUMEXP_CACHE, {"memory"}, "ctx.cache", 9),
}


def _score(exercise: str, answer: str, sandbox=None) -> tuple[float, dict]:
    """Points of the exercise's own tests, and {test suffix: feedback} for each test lost."""
    source = EXERCISE_TO_SOURCE[exercise]
    _, nb = samples.student_notebook(source.assignment, {exercise: textwrap.dedent(answer)})
    before, tests = grading.plan(source, nb)
    tests = [t for t in tests if t[0].startswith(f"test_{exercise}_")]
    points = {grade_id: p for grade_id, p, _ in tests}
    if sandbox is None:
        from test_fast import run_in_process

        outcomes = [(g, o.status, o.feedback) for g, o in run_in_process(before, tests)]
    else:
        results = grading.run_tests(sandbox, before, tests, seed=7, limits=Limits(seconds_per_test=90))
        outcomes = [(r.grade_id, r.status, r.feedback) for r in results]
    lost = {g.removeprefix(f"test_{exercise}_"): f for g, status, f in outcomes if status != "passed"}
    return sum(points[g] for g, status, _ in outcomes if status == "passed"), lost


def _assert_caught(name, score, lost):
    exercise, _, must_lose, phrase, expected = FORGERIES[name]
    assert must_lose <= set(lost), f"{name}: kept {sorted(must_lose - set(lost))} ({lost})"
    if phrase:
        assert any(phrase.lower() in f.lower() for f in lost.values()), lost
    assert score == expected, (score, lost)


@pytest.mark.fast
@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forgery_loses_the_points_of_the_rule_it_dodges(name):
    exercise, answer, *_ = FORGERIES[name]
    score, lost = _score(exercise, answer)
    _assert_caught(name, score, lost)


@pytest.mark.parametrize("name", ["cube-detour", "exp-nonleaf", "mlp-own-hooks", "logsumexp-dict-on-ctx"])
def test_forgery_loses_points_through_the_grader(name, sandbox):
    exercise, answer, *_ = FORGERIES[name]
    score, lost = _score(exercise, answer, sandbox)
    _assert_caught(name, score, lost)
