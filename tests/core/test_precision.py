"""`off_by_float32` (autograder/checks/common/precision.py) tells float32's rounding inside a float64 answer from the
mistakes that also err by little: an eps added somewhere, a bias of one sign, a wrong formula. A table of both."""

import pytest
import torch

from autograder.checks.common.precision import off_by_float32

F64 = torch.float64
X = torch.linspace(-3, 3, 25, dtype=F64).reshape(5, 5) + 0.1
NORM = X.norm(dim=-1)


def grad_with_norm(norm):
    return X / norm.unsqueeze(-1)


@pytest.mark.parametrize("name, actual, expected, verdict", [
    ("computed in float32, cast back", X.exp().float().double(), X.exp(), True),
    ("a float32 factor among float64 ones", X * torch.tensor(0.1, dtype=torch.float32).double() / 0.1, X, True),
    ("exact", X.exp(), X.exp(), False),
    ("an eps of 1e-10 under the square root", grad_with_norm((NORM ** 2 + 1e-10).sqrt()), grad_with_norm(NORM), False),
    ("a wrong formula", X * 1.01, X, False),
    ("a bias of one sign, far past float32's rounding", X + 1e-3, X, False),
])
def test_float32_rounding_is_told_from_small_mistakes(name, actual, expected, verdict):
    assert off_by_float32(actual, expected) is verdict, name
