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


# ------------------------------------------------------------------------ notebook 10b: jacfwd against jacrev


def jacobian_costs(sizes, fixed: int = 8, min_run_time: float = 0.1, seed: int = 0) -> dict:
    """Median seconds of jacfwd and jacrev of f(x) = tanh(W x), measured with torch.utils.benchmark, for W of
    `fixed` rows and each of `sizes` columns ("inputs": n grows, m fixed) and the other way ("outputs").
    Returns {"inputs": {"jacfwd": [...], "jacrev": [...]}, "outputs": {...}}, one time per size."""
    from torch.func import jacfwd, jacrev
    from torch.utils.benchmark import Timer

    generator = torch.Generator().manual_seed(seed)
    costs = {}
    for sweep in ("inputs", "outputs"):
        costs[sweep] = {"jacfwd": [], "jacrev": []}
        for size in sizes:
            m, n = (fixed, size) if sweep == "inputs" else (size, fixed)
            w, x = torch.randn(m, n, generator=generator), torch.randn(n, generator=generator)

            def f(v, w=w):
                return torch.tanh(w @ v)

            for name, transform in (("jacfwd", jacfwd), ("jacrev", jacrev)):
                jacobian = transform(f)
                assert jacobian(x).shape == (m, n)
                timer = Timer("jacobian(x)", globals={"jacobian": jacobian, "x": x}, num_threads=1)
                costs[sweep][name].append(timer.blocked_autorange(min_run_time=min_run_time).median)
    return costs


def show_jacobian_costs(sizes, costs: dict, fixed: int = 8, show: bool = True):
    """Two panels of jacobian_costs: time against the number of inputs (outputs fixed), then against the number
    of outputs (inputs fixed). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
    for ax, sweep, other in zip(axes, ("inputs", "outputs"), ("outputs", "inputs")):
        for (name, seconds), style in zip(costs[sweep].items(), ["o-", "s--"]):
            ax.loglog(sizes, [s * 1e3 for s in seconds], style, label=name)
        ax.set_xlabel(f"number of {sweep} ({fixed} {other})", fontsize=10)
        ax.set_title(f"Jacobian of tanh(W x): more {sweep}", fontsize=11)
        ax.legend(fontsize=9)
    axes[0].set_ylabel("milliseconds (median, measured)", fontsize=10)
    fig.tight_layout()
    if show:
        plt.show()
    return fig
