"""An error PyTorch raises is recognised in one place, autograder/checks/raw_errors.py, and the check tables only word
its code: each entry of raw_errors.RAW is raised here for real on torch 2.13 (a tiny Function, op or call) and must
be recognised by that entry, and by no phrase a check's own table (a Rule's `pattern`) or a check's own
`... in str(error)` still matches."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.autograd import Function

from autograder.checks import raw_errors

CHECKS = Path(__file__).resolve().parents[2] / "autograder" / "checks"


def _backward(Fn, *inputs):
    Fn.apply(*inputs).sum().backward()


class _OneGrad(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        return x * alpha

    @staticmethod
    def backward(ctx, g):
        return g


class _GradForFloat(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        return x * alpha

    @staticmethod
    def backward(ctx, g):
        return g, g


class _Summed(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g.sum(0)


class _SavesFloat(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x, alpha)
        return x * alpha

    @staticmethod
    def backward(ctx, g):
        return g, None


class _DirtyClone(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g * 2


class _AsIs(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g


class _CtxStyle(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class _Split(Function):
    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g * 2


def _inplace():
    x = torch.randn(3, requires_grad=True) * 1
    saved_by = x.sin()
    x.mul_(2)
    saved_by.sum().backward()


class _WritesIntoGradOutput(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g.mul_(2)  # after .sum(), g is one number broadcast: the write raises


def _view_changed():
    x = torch.randn(3, requires_grad=True) * 1
    y = _AsIs.apply(x)
    x.mul_(2)
    y.sum().backward()


def _leaf_in_place():
    torch.randn(3, requires_grad=True).mul_(2)


def _unpack_nothing():
    (x,) = ()
    return x


def _bad_signature(x):
    return x


def _custom_ops():
    """Three custom operators: with no autograd formula, with no fake kernel, with a fake kernel of the wrong shape."""
    if not hasattr(_custom_ops, "ops"):
        def bare(x: torch.Tensor) -> torch.Tensor:
            return x.clone() * 2

        def wrong_fake(x: torch.Tensor) -> torch.Tensor:
            return x.clone()

        no_autograd = torch.library.custom_op("raw_errors_test::bare", bare, mutates_args=())
        fake_wrong = torch.library.custom_op("raw_errors_test::wrong_fake", wrong_fake, mutates_args=())
        fake_wrong.register_fake(lambda x: x.new_empty(x.shape[0] + 1))
        lib = torch.library.Library("raw_errors_test_cpu", "DEF")
        lib.define("cpu_only(Tensor x) -> Tensor")
        lib.impl("cpu_only", lambda x: x.clone(), "CPU")
        _custom_ops.ops = (no_autograd, fake_wrong, lib)
    return _custom_ops.ops


def _no_fake_impl():
    from torch._subclasses.fake_tensor import FakeTensorMode

    bare, _, _ = _custom_ops()
    with FakeTensorMode():
        bare(torch.randn(3))


# Each entry of raw_errors.RAW, raised as PyTorch (or Python) raises it.
RAISE = {
    "not-implemented": lambda: torch.func.jvp(_Split.apply, (torch.randn(3),), (torch.randn(3),)),
    "wrong-arity": lambda: _backward(_OneGrad, torch.randn(3, requires_grad=True), 2.0),
    "missing-none": lambda: _backward(_GradForFloat, torch.randn(3, requires_grad=True), 2.0),
    "wrong-grad-shape": lambda: _backward(_Summed, torch.randn(2, 3, requires_grad=True)),
    "inplace-error": _inplace,
    "overlapping-write": lambda: _backward(_WritesIntoGradOutput, torch.randn(3, requires_grad=True)),
    "view-changed-in-place": _view_changed,
    "leaf-in-place": _leaf_in_place,
    "dirty-not-returned": lambda: _DirtyClone.apply(torch.randn(3, requires_grad=True) * 1),
    "saved-a-float": lambda: _SavesFloat.apply(torch.randn(3, requires_grad=True), 2.0),
    "no-graph": lambda: torch.autograd.grad(torch.randn(3).sum(), [torch.randn(3)]),
    "not-differentiable": lambda: torch.nn.functional.binary_cross_entropy(
        torch.rand(3), torch.rand(3), weight=torch.rand(3, requires_grad=True)),
    "no-setup-context": lambda: torch.func.grad(lambda t: _CtxStyle.apply(t).sum())(torch.randn(3)),
    "setup-context-missing": lambda: Function.setup_context(None, (), None),
    "no-vmap-support": lambda: torch.vmap(_Split.apply)(torch.randn(2, 3)),
    "no-vmap-rule": lambda: Function.vmap(None, (0,), torch.randn(2, 3)),
    "no-jvp": lambda: torch.func.jvp(_Split.apply, (torch.randn(3),), (torch.randn(3),)),
    "no-storage": lambda: torch.vmap(lambda t: torch.tensor(t.data_ptr()))(torch.randn(2, 3)),
    "numpy-scalar": lambda: torch.from_numpy(np.float64(1.0)),
    "wrong-signature": lambda: _bad_signature(1, 2),
    "nothing-unpacked": _unpack_nothing,
    "tuple-index": lambda: ()[0],
    "none-operand": lambda: None + torch.ones(1),
    "none-attribute": lambda: None.shape,
    "none-type": lambda: None.shape,
    "size-mismatch": lambda: torch.randn(3) + torch.randn(4),
    "cannot-broadcast": lambda: torch.broadcast_shapes((2,), (3,)),
    "shape-mismatch": lambda: torch.zeros(3).index_put_((torch.tensor([0, 1]),), torch.ones(3)),
    "no-autograd": lambda: _custom_ops()[0](torch.randn(3, requires_grad=True)).sum().backward(),
    "no-fake-impl": _no_fake_impl,
    "no-meta-kernel": lambda: (_custom_ops(), torch.ops.raw_errors_test_cpu.cpu_only(torch.randn(3, device="meta"))),
    "fake-metadata": lambda: torch.library.opcheck(_custom_ops()[1], (torch.randn(3),), test_utils="test_faketensor"),
}
# PyTorch's words, where no small program reaches them on torch 2.13 (the phrases are in its library).
WORDS = {
    "names-not-implemented": RuntimeError("opcheck(op, ...): test_faketensor failed with NotImplementedError: ..."),
    "leaf-was-in-place": RuntimeError("a leaf Variable that requires grad has been used in an in-place operation."),
    "not-broadcastable": RuntimeError("grid_sampler(): key batch shape [2] is not broadcastable with output shape [3]"),
}


def _raised(code) -> BaseException:
    if code in WORDS:
        return WORDS[code]
    try:
        RAISE[code]()
    except Exception as error:  # noqa: BLE001 - the error is the point
        return error
    raise AssertionError(f"{code}: nothing raised")


def test_every_entry_is_raised_here_and_only_entries_are():
    assert set(RAISE) | set(WORDS) == raw_errors.CODES
    assert not set(RAISE) & set(WORDS)


@pytest.mark.parametrize("code", sorted(raw_errors.CODES))
def test_the_entry_recognises_pytorchs_own_error(code):
    error = _raised(code)
    assert code in raw_errors.recognise(error), f"{code}: {type(error).__name__}: {error}"


def _module_phrases():
    """(file:line, pattern) of every phrase a check module recognises itself: a Rule's `pattern` and a string
    looked for `in str(error)`, read off the source and evaluated in the module."""
    import importlib

    found = []
    for path in sorted(CHECKS.rglob("*.py")):
        if path.stem == "raw_errors":
            continue
        dotted = path.relative_to(CHECKS).with_suffix("").parts
        namespace = vars(importlib.import_module(".".join(("autograder", "checks") + dotted[:-1 if dotted[-1] == "__init__" else None])))
        for node in ast.walk(ast.parse(path.read_text())):
            exprs = []
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "Rule":
                exprs = node.args[1:2] + [k.value for k in node.keywords if k.arg == "pattern"]
            elif (isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn))
                  and isinstance(node.comparators[0], ast.Call)
                  and getattr(node.comparators[0].func, "id", "") == "str"):
                exprs = [node.left]
            for expr in exprs:
                value = eval(compile(ast.Expression(expr), str(path), "eval"), dict(namespace))  # noqa: S307
                if value is not None:
                    found.append((f"{path.name}:{expr.lineno}", value))
    return found


PHRASES = _module_phrases()


def test_the_module_phrases_are_read():
    assert len(PHRASES) > 15 and any("Stride mismatch" in p for _, p in PHRASES)


@pytest.mark.parametrize("code", sorted(raw_errors.CODES))
def test_no_check_recognises_the_error_itself(code):
    import re

    texts = [raw_errors.text(e) for e in raw_errors.causes(_raised(code))]
    again = [where for where, pattern in PHRASES if any(re.search(pattern, t, re.S) for t in texts)]
    assert not again, f"{code} is recognised in raw_errors.py; also at {again}: ask for its code there instead"


def test_every_entry_is_asked_for():
    sources = "\n".join(p.read_text() for p in CHECKS.rglob("*.py") if p.stem != "raw_errors")
    unused = sorted(code for code in raw_errors.CODES if f'"{code}"' not in sources)
    assert not unused, f"entries no check asks for: {unused}"
