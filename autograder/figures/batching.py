"""Where `vmap` puts the batch, and what a kernel that sums along its last dimension does with it (notebook 10).

`PassThroughRunningSum` is a NumPy running sum whose `vmap` rule leaves the batch wherever `vmap` put it.
`batched_running_sum(samples, batch_dim)` runs it under `torch.func.vmap(..., in_dims=batch_dim)` and compares
each sample's result with the running sum of that sample alone. `show_batch_dim` draws the batch as the kernel
receives it and each sample's result, right or wrong; `batch_dim_explorer()` is the same picture with a menu
for the batch dimension and a slider for the number of samples. matplotlib and ipywidgets are imported only
when a figure or a widget is made.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


class PassThroughRunningSum(torch.autograd.Function):
    """np.cumsum along the last dimension; its vmap rule hands the batch to the kernel where it is. No backward:
    the picture never differentiates it, and the package holds no part of the exercise's answer."""

    @staticmethod
    def forward(x):
        return torch.from_numpy(np.cumsum(x.numpy(force=True), axis=-1))

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def vmap(info, in_dims, x):
        return PassThroughRunningSum.apply(x), in_dims[0]


@dataclass
class BatchedRun:
    batch_dim: int
    kernel_input: torch.Tensor      # the batch as the kernel received it
    results: torch.Tensor           # what vmap returned: one row per sample
    expected: torch.Tensor          # the running sum of each sample alone
    right: list[bool]               # per sample


def samples_of(count: int, length: int = 4) -> torch.Tensor:
    """`count` samples of `length` small whole numbers, easy to add up by eye."""
    return (torch.arange(count * length, dtype=torch.float64).reshape(count, length) % 5) + 1


def batched_running_sum(samples: torch.Tensor, batch_dim: int) -> BatchedRun:
    """vmap PassThroughRunningSum over `samples` (one per row) with the batch placed on `batch_dim`."""
    seen = []

    class Recording(PassThroughRunningSum):
        @staticmethod
        def vmap(info, in_dims, x):
            seen.append(x.clone())
            return PassThroughRunningSum.apply(x), in_dims[0]

    batched = samples.movedim(0, batch_dim)                     # the batch where vmap will look for it
    results = torch.func.vmap(Recording.apply, in_dims=batch_dim)(batched)
    expected = torch.stack([PassThroughRunningSum.apply(sample) for sample in samples])
    right = [bool(torch.equal(r, e)) for r, e in zip(results, expected)]
    return BatchedRun(batch_dim, seen[0], results, expected, right)


def draw_batched_run(run: BatchedRun, axes) -> None:
    """Left: the batch as the kernel got it, the batch's dimension shaded, an arrow along the summed
    dimension. Right: each sample's result, green where right, red where wrong."""
    from matplotlib.patches import Rectangle

    left, right = axes
    grid = run.kernel_input
    rows, cols = grid.shape
    for i in range(rows):
        for j in range(cols):
            sample = i if run.batch_dim == 0 else j
            left.add_patch(Rectangle((j, rows - 1 - i), 1, 1, facecolor=f"C{sample}", alpha=0.3, edgecolor="black"))
            left.text(j + 0.5, rows - 0.5 - i, f"{grid[i, j]:g}", ha="center", va="center", fontsize=11)
    for i in range(rows):
        left.annotate("", xy=(cols - 0.05, rows - 0.5 - i), xytext=(0.05, rows - 0.5 - i),
                      arrowprops=dict(arrowstyle="->", color="black", alpha=0.35, lw=2))
    left.set_xlim(0, cols)
    left.set_ylim(0, rows)
    left.set_axis_off()
    left.set_title(f"what the kernel gets: batch on dimension {run.batch_dim}\n(colour = sample; arrows: "
                   "np.cumsum along the last dimension)", fontsize=10)
    count, length = run.results.shape
    for i in range(count):
        ok = run.right[i]
        for j in range(length):
            right.add_patch(Rectangle((j, count - 1 - i), 1, 1, facecolor="#9ad19a" if ok else "#e8a0a0",
                                      edgecolor="black"))
            right.text(j + 0.5, count - 0.5 - i, f"{run.results[i, j]:g}", ha="center", va="center", fontsize=11)
        right.text(length + 0.15, count - 0.5 - i, "right" if ok else f"should be {run.expected[i].tolist()}",
                   va="center", fontsize=9)
    right.set_xlim(0, length + 2.6)
    right.set_ylim(0, count)
    right.set_axis_off()
    right.set_title(f"vmap's result, sample by sample: {sum(run.right)} of {count} right", fontsize=10)


def show_batch_dim(samples: torch.Tensor, *batch_dims: int, show: bool = True) -> list[BatchedRun]:
    """One row of two panels for each batch dimension. Returns the runs the figure shows."""
    import matplotlib.pyplot as plt

    runs = [batched_running_sum(samples, d) for d in batch_dims]
    fig, axes = plt.subplots(len(runs), 2, figsize=(11, 0.55 * max(samples.shape) * len(runs) + 1.3 * len(runs)),
                             squeeze=False)
    for run, pair in zip(runs, axes):
        draw_batched_run(run, pair)
    fig.tight_layout()
    if show:
        plt.show()
    return runs


def batch_dim_explorer(count: int = 3):
    """A menu for the batch dimension and a slider for the number of samples; each change redraws."""
    import ipywidgets as widgets

    def explore(batch_dim, samples):
        run = show_batch_dim(samples_of(samples), batch_dim)[0]
        print(f"batch on dimension {batch_dim}: {sum(run.right)} of {samples} samples right")

    return widgets.interactive(
        explore,
        batch_dim=widgets.Dropdown(options=[("0 (first)", 0), ("1 (last)", 1)], value=0,
                                   description="batch on"),
        samples=widgets.IntSlider(value=count, min=2, max=5, description="samples"))
