"""Where a 2-d tensor's entries sit in memory, drawn from its real strides: `show_layouts(x=xt, out=y)`.

Notebooks 06 (a stride-0 `grad_output`) and 16 (`empty_like` against `new_empty`): `memory_order(t)` gives, for each entry of a 2-d tensor, its position in memory (from
`t.stride()`, counted from its first entry); `show_layouts` draws one grid per tensor, each cell numbered and
coloured by that position, so a transposed layout reads down the columns and a contiguous one along the rows.
matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import torch


def memory_order(t: torch.Tensor) -> torch.Tensor:
    """For each entry of the 2-d tensor `t`: how many elements after its first entry it sits in memory."""
    if t.dim() != 2:
        raise ValueError(f"memory_order draws 2-d tensors; this one has {t.dim()} dimensions")
    rows, cols = t.shape
    s0, s1 = t.stride()
    return torch.arange(rows)[:, None] * s0 + torch.arange(cols)[None, :] * s1


def show_layouts(show: bool = True, **tensors: torch.Tensor):
    """One grid per named 2-d tensor: each entry numbered by its place in memory. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(tensors), figsize=(3.3 * len(tensors), 3.3), squeeze=False)
    for ax, (name, t) in zip(axes[0], tensors.items()):
        order = memory_order(t)
        ax.imshow(order.numpy(), cmap="viridis", alpha=0.55)
        for (i, j), place in zip(torch.cartesian_prod(torch.arange(t.shape[0]), torch.arange(t.shape[1])).tolist(),
                                 order.flatten().tolist()):
            ax.text(j, i, str(place), ha="center", va="center", fontsize=11)
        ax.set_title(f"{name}\nshape {tuple(t.shape)}, stride {t.stride()}", fontsize=10)
        ax.set_xticks(range(t.shape[1]))
        ax.set_yticks(range(t.shape[0]))
        ax.set_xlabel("column", fontsize=9)
        ax.set_ylabel("row", fontsize=9)
    fig.suptitle("each entry numbered by its place in memory", fontsize=10)
    fig.tight_layout()
    if show:
        plt.show()
    return fig
