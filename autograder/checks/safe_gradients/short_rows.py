"""Whether SafeNorm's forward moves the value of a short row (not only of a zero row): then a nonzero value at a zero
row is that same bias (an eps inside the square root gives sqrt(eps) at 0 and more than its length to every short
row), which is the small_norms rule's, and the zero_rows test does not charge it a second time."""

from __future__ import annotations

import torch

from autograder.checks import common as c


def biased_short_row(SN, apply) -> bool:
    """Whether the answer's norm of a row of length 1e-6 (float64) is not that length; `apply(SN, x, what)` calls it.
    A call that fails says nothing here: the zero_rows test then judges the value at zero as before."""
    row = torch.zeros(1, 3, dtype=torch.float64)
    row[0, 0] = 1e-6
    try:
        y = apply(SN, row.requires_grad_(True), "SafeNorm.apply(x) for a row of norm 1e-6 (float64)")
        value = y.detach().reshape(-1).to(torch.float64)
    except (c.Mistake, AttributeError, RuntimeError, TypeError):
        return False
    return value.numel() == 1 and not bool(torch.allclose(value, torch.tensor([1e-6], dtype=torch.float64),
                                                          rtol=1e-6, atol=0.0))
