"""The dtypes a Function sees under autocast, stage by stage (notebook 12): `show_dtype_flow(flows)`.

`flows` maps a way of calling the Function to what was observed at each stage (a dtype name, "on"/"off" for
autocast, "error"); the figure is a grid, one row per way, coloured by value, so where float32 turns into
bfloat16 (and back) reads across each row. matplotlib is imported only when the figure is drawn.
"""

from __future__ import annotations

COLOURS = {"float32": "#b7c9e8", "bfloat16": "#f5b461", "on": "#9ad19a", "off": "#eeeeee", "error": "#e8a0a0"}


def show_dtype_flow(flows: dict, show: bool = True):
    """One row per entry of `flows` (a label -> {stage: value}), one column per stage, in the first row's
    order. Returns the figure."""
    import matplotlib.pyplot as plt

    stages = list(next(iter(flows.values())))
    fig, ax = plt.subplots(figsize=(2.0 * len(stages) + 3.2, 0.6 * len(flows) + 1.3))
    for r, (label, seen) in enumerate(flows.items()):
        y = len(flows) - 1 - r
        for c, stage in enumerate(stages):
            value = str(seen.get(stage, ""))
            ax.add_patch(plt.Rectangle((c, y), 1, 1, edgecolor="white", facecolor=COLOURS.get(value, "white")))
            ax.text(c + 0.5, y + 0.5, value, ha="center", va="center", fontsize=10)
    ax.set_xlim(0, len(stages))
    ax.set_ylim(0, len(flows))
    ax.set_xticks([c + 0.5 for c in range(len(stages))], stages, fontsize=9)
    ax.xaxis.tick_top()
    ax.set_yticks([len(flows) - 0.5 - r for r in range(len(flows))], list(flows), fontsize=10)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    fig.tight_layout()
    if show:
        plt.show()
    return fig
