"""Notebook 13's `SafeNorm` (see `safe_gradients`): the zero rows' and short rows' rules, judged where the derivative
rule's batch mistakes have no effect. An output that keeps its last dimension ((..., 1), keepdim=True), a grad_output
not unsqueezed at -1 (broadcast along each row's entries, or unsqueezed at 1, which a single row of shape (D,) does
not have): the values test names them (one mistake costs its rule's points once), and these tests look at the rows
through the output's right shape, or one row at a time (of shape (D,), or as a batch of one row (1, D)), where
neither shows."""

from __future__ import annotations

import torch

from autograder.checks import common as c

# Mistakes of the derivative rule that only a batch (or a row without a batch) shows.
BATCH_ONLY = frozenset({"wrong-dim", "no-unsqueeze"})


def judged_shape(y, x):
    """Inside a test of another rule (`common.inputs_judged_elsewhere`): an output of shape (..., 1), the norm with
    its last dimension kept, read as x.norm(dim=-1)'s shape (a view: backward still gets its own shape)."""
    if c.judged_elsewhere.active() and isinstance(y, torch.Tensor) and x.dim() >= 1 \
            and tuple(y.shape) == tuple(x.shape[:-1]) + (1,):
        return y.squeeze(-1)
    return y


def batch_or_rows(check, SN, x, g, label, *paired):
    """check(SN, x, *paired, g, label), or on each row alone (`paired`: tensors of x's rows, row for row)."""
    try:
        check(SN, x, *paired, g, label)
    except c.Mistake as mistake:
        if mistake.code not in BATCH_ONLY:
            raise
        rows, weights = x.detach().reshape(-1, x.shape[-1]), g.detach().reshape(-1)
        paired = [t.detach().reshape(rows.shape[0], *t.shape[max(x.dim() - 1, 0):]).requires_grad_(t.requires_grad)
                  for t in paired]
        for k in range(rows.shape[0]):
            _one_row(check, SN, rows, weights, paired, k, f"{label}, row {k + 1} alone")


def _one_row(check, SN, rows, weights, paired, k, label):
    """Row k alone, of shape (D,) (a norm over the whole tensor is then the row's), or, where that shape itself meets
    a batch mistake (grad_output unsqueezed at 1), as a batch of one row (1, D)."""
    try:
        check(SN, rows[k].clone().requires_grad_(True), *[t[k].detach().clone().requires_grad_(t.requires_grad)
                                                          for t in paired], weights[k].clone(), label)
    except c.Mistake as mistake:
        if mistake.code not in BATCH_ONLY:
            raise
        check(SN, rows[k:k + 1].clone().requires_grad_(True), *[t[k:k + 1].detach().clone().requires_grad_(
            t.requires_grad) for t in paired], weights[k:k + 1].clone(), label)
