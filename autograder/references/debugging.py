"""Notebook 15's Sinc: sin(x)/x and its derivative, exact near 0 (torch.sinc's own derivative cancels there)."""

from __future__ import annotations

import torch


def sinc_value_and_slope(x):
    """sinc and its derivative in float64, series near 0 (no cancellation), returned in x's dtype."""
    x64 = x.detach().to(torch.float64)
    small = x64.abs() < 1e-2
    safe = torch.where(small, 1.0, x64)
    value = torch.where(small, 1 - x64 ** 2 / 6 + x64 ** 4 / 120, torch.sin(safe) / safe)
    slope = torch.where(small, -x64 / 3 + x64 ** 3 / 30, (safe * torch.cos(safe) - torch.sin(safe)) / safe ** 2)
    return value.to(x.dtype), slope.to(x.dtype)
