"""Notebook 13's `SafeNorm`: an eps added to the norm in backward, recognised in a gradient, so that the values test
leaves it to the small_norms test's rule (see `safe_gradients`)."""

from __future__ import annotations

import torch


def eps_added_to_norm(grad, x, g) -> bool:
    """Whether grad is grad_output * x / (norm + eps) for one small eps > 0 on every row: the small_norms rule's
    mistake (its test names it), which shrinks each row's gradient by norm / (norm + eps) and leaves its direction."""
    if tuple(grad.shape) != tuple(x.shape) or x.dtype != torch.float64 or not bool(torch.isfinite(grad).all()):
        return False
    x64, got = x.detach().to(torch.float64), grad.detach().to(torch.float64)
    norms = torch.linalg.vector_norm(x64, dim=-1, keepdim=True)
    exact = g.detach().to(torch.float64).unsqueeze(-1) * x64 / norms
    rows = (exact.abs().amax(-1) > 0).reshape(-1)
    exact, got, norms = (t.reshape(-1, x.shape[-1])[rows] for t in (exact, got, norms.expand_as(x64)))
    if not exact.numel():
        return False
    ratio = (got * exact).sum(-1) / (exact * exact).sum(-1)
    if not bool(torch.allclose(got, ratio.unsqueeze(-1) * exact, rtol=1e-9, atol=0.0)):
        return False
    eps = norms[:, 0] * (1 / ratio - 1)
    return bool((eps > 0).all()) and float(eps.max()) <= 1e-4 \
        and bool(torch.allclose(eps, eps.mean().expand_as(eps), rtol=1e-3, atol=0.0))
