"""Notebook 15's `Sinc`: the accuracy asked of the derivative next to 0 sits between what the formula's own rounding
costs (PyTorch's own torch.sinc backward, and the other ways of writing the formula: full marks) and what an added
eps or a clamp costs (a lost point). Measured, not assumed: if a torch release rounds differently, this says so."""

from __future__ import annotations

import pytest
import torch

from autograder.engine.shared import Mistake
from autograder.checks.debugging.sinc import AWAY_CASES, _sinc_value_and_slope, allowed_error, sinc_away

pytestmark = pytest.mark.fast

MAGNITUDES = 10 ** (-8 * torch.rand(20000, generator=torch.Generator().manual_seed(15), dtype=torch.float64))
X = MAGNITUDES * torch.where(torch.arange(20000) % 2 == 0, 1.0, -1.0).double()   # |x| in [1e-8, 1], both signs


def _torch_sinc_slope(x):
    x = x.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(torch.sinc(x / torch.pi).sum(), x)   # torch.sinc(u) = sin(pi u) / (pi u)
    return grad


FORMULAS = {
    "torch.sinc's own backward": _torch_sinc_slope,
    "(x cos x - sin x) / x**2": lambda x: (x * torch.cos(x) - torch.sin(x)) / x ** 2,
    "(cos x - sin x / x) / x": lambda x: (torch.cos(x) - torch.sin(x) / x) / x,
    "cos x / x - sin x / x**2": lambda x: torch.cos(x) / x - torch.sin(x) / x ** 2,
}


def _relative_error(slope):
    _, truth = _sinc_value_and_slope(X)
    return (slope - truth).abs() / truth.abs()


@pytest.mark.parametrize("name", FORMULAS)
def test_the_formulas_rounding_stays_well_inside_what_is_allowed(name):
    error = _relative_error(FORMULAS[name](X))
    assert bool((error <= allowed_error(X) / 4).all()), f"{name}: {(error / allowed_error(X)).max().item():.2f}"


@pytest.mark.parametrize("eps", [1e-8, 1e-12, 1e-14])
def test_an_eps_added_to_x_squared_shows_between_1e_6_and_1e_5(eps):
    slope = (X * torch.cos(X) - torch.sin(X)) / (X ** 2 + eps)
    small = (X.abs() >= 1e-6) & (X.abs() <= 1e-5)   # below 1e-7 rounding alone may be 100 %
    assert bool((_relative_error(slope)[small] > allowed_error(X)[small]).all())


def _sinc_with(slope):
    class Sinc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.where(x == 0, 1.0, torch.sin(x) / x)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * slope(x)
    return Sinc


def _clamped(bound):
    def slope(x):
        s = torch.where(x < 0, x.clamp(max=-bound), x.clamp(min=bound))
        return torch.where(x == 0, 0.0, torch.where(s.abs() < 1e-2, -s / 3 + s ** 3 / 30, -s / 3))
    return slope


@pytest.mark.parametrize("bound", [1e-5, 1e-6])
def test_a_clamp_of_x_loses_the_point_visible_and_hidden(bound):
    for cases in (AWAY_CASES[:1], AWAY_CASES):
        with pytest.raises(Mistake) as failure:
            sinc_away(_sinc_with(_clamped(bound)), cases=cases)
        assert failure.value.code == "inexact-near-zero"


def test_pytorchs_own_fix_keeps_the_point():
    sinc_away(_sinc_with(lambda x: torch.where(x == 0, 0.0, (x * torch.cos(x) - torch.sin(x)) / x ** 2)),
              cases=AWAY_CASES)
