"""Figures of things measured at run time, so that a lesson cell reads like the idea it shows.

Notebook 15: `gradcheck_map(fn, edges)` runs float64 gradcheck on each region between consecutive edges and
`show_gradcheck_map` draws the verdicts as a pass/fail strip for each Function; `show_held_over_steps` draws the
memory that dropped outputs still hold, step after step. Notebook 10b: `jacobian_costs` times `jacfwd` and
`jacrev` (torch.utils.benchmark) over a range of input and output sizes, and `show_jacobian_costs` draws them.
matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import torch
from torch.autograd import gradcheck

# ------------------------------------------------------------------------ notebook 15: gradcheck over regions


def gradcheck_map(fn, edges, points: int = 7) -> list[bool]:
    """For each region [edges[i], edges[i + 1]]: does float64 gradcheck pass on `points` inputs spread over it?"""
    edges = [float(e) for e in edges]
    return [gradcheck(fn, (torch.linspace(low, high, points, dtype=torch.float64, requires_grad=True),),
                      raise_exception=False)
            for low, high in zip(edges[:-1], edges[1:])]


def show_gradcheck_map(edges, verdicts: dict, show: bool = True):
    """One strip per Function in `verdicts` (a label -> gradcheck_map's list): green where gradcheck passed over
    that region of inputs, red where it failed. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    edges = [float(e) for e in edges]
    fig, ax = plt.subplots(figsize=(10, 0.8 + 0.55 * len(verdicts)))
    for row, (label, passed) in enumerate(verdicts.items()):
        y = len(verdicts) - 1 - row
        for low, high, ok in zip(edges[:-1], edges[1:], passed):
            ax.add_patch(Rectangle((low, y + 0.1), high - low, 0.8, facecolor="#9ad19a" if ok else "#e8a0a0",
                                   edgecolor="white"))
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(0, len(verdicts))
    ax.set_yticks([len(verdicts) - 0.5 - r for r in range(len(verdicts))], list(verdicts), fontsize=10)
    ax.set_xlabel("region of inputs (7 float64 points each)", fontsize=10)
    ax.legend(handles=[Patch(facecolor="#9ad19a", label="gradcheck passes"),
                       Patch(facecolor="#e8a0a0", label="gradcheck fails")],
              loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    fig.tight_layout()
    if show:
        plt.show()
    return fig


# ------------------------------------------------------------------------ notebook 15: memory held step by step


def show_held_over_steps(curves: dict, collected_at=None, show: bool = True):
    """Kilobytes still held by the outputs of finished steps, after each step, one line per layer in `curves`
    (a label -> one number of bytes per step); a dotted line where gc.collect() ran. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for (label, held), style in zip(curves.items(), ["o-", "s--", "d:"]):
        ax.plot(range(1, len(held) + 1), [b / 1024 for b in held], style, label=label)
    if collected_at is not None:
        ax.axvline(collected_at, color="grey", linestyle=":")
        ax.text(collected_at, ax.get_ylim()[1] * 0.95, " gc.collect()", color="grey", va="top", fontsize=9)
    ax.set_xlabel("training step (its output dropped at the end)", fontsize=10)
    ax.set_ylabel("kilobytes still held", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=9, loc="upper left")
    fig.tight_layout()
    if show:
        plt.show()
    return fig
