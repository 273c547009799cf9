"""Figures the notebooks draw, so that a lesson cell reads like the idea it shows.

Notebook 03 (shapes): `show_broadcast((2, 3), (3,))` draws which output dimensions each input's gradient must
sum over; `broadcast_explorer()` is the same picture with two menus of shapes; `recipe` and `copies` put it in
words and numbers. Notebook 08: `show_saved_and_compute` draws memory and compute of four ways of writing
the same network, `show_saved_against_depth` the memory of a stack as it grows deeper. Notebook 14: `show_error_curves`. matplotlib and ipywidgets are imported only when a figure
is drawn.

One module per kind of figure beside this one: `graphs` (the backward graph a call records: nodes, saved tensors,
version counters; notebooks 01, 02, 04, 12), `measures` (gradcheck maps and held memory, notebook 15; jacfwd against
jacrev, notebook 10b), `layouts` (where entries sit in memory, notebooks 06 and 16), `batching` (where vmap puts the
batch, notebook 10), `registrations` (which part of a custom operator each consumer runs, notebook 11) and `dtypes`
(the dtypes a Function sees under autocast, notebook 12).
"""

from __future__ import annotations

import ast

import torch

COLOURS = {"output": "#b7c9e8", "kept": "#9ad19a", "summed, keepdim": "#f5b461", "summed away": "#e6e6e6"}
LEGEND = {"kept": "kept as is", "summed, keepdim": "summed, keepdim=True",
          "summed away": "summed away (dim removed)"}
SHAPE_CHOICES = ["()", "(1,)", "(3,)", "(4,)", "(2, 1)", "(1, 3)", "(2, 3)", "(3, 1)", "(1, 4)",
                 "(4, 1, 3)", "(4, 2, 3)", "(5, 1, 1)", "(2, 1, 4)"]


def broadcast_roles(shape, out_shape) -> list[str]:
    """For each output dimension, what the gradient of an input of `shape` does with it:
    "summed away" (the input has no such dimension), "summed, keepdim" (the input's size-1 dimension was
    repeated) or "kept"."""
    shape, out_shape = tuple(shape), tuple(out_shape)
    extra = len(out_shape) - len(shape)
    roles = []
    for i, size in enumerate(out_shape):
        if i < extra:
            roles.append("summed away")
        elif shape[i - extra] == 1 and size != 1:
            roles.append("summed, keepdim")
        else:
            roles.append("kept")
    return roles


def recipe(shape, out_shape) -> str:
    """The un-broadcast of a gradient of `out_shape` down to `shape`, in words."""
    roles = broadcast_roles(shape, out_shape)
    away = tuple(i for i, r in enumerate(roles) if r == "summed away")
    keep = tuple(i - len(away) for i, r in enumerate(roles) if r == "summed, keepdim")
    steps = ([f"sum dims {away} away"] if away else []) + ([f"sum dims {keep} with keepdim=True"] if keep else [])
    return ", then ".join(steps) or "nothing to sum"


def copies(shape, out_shape) -> int:
    """How many times broadcasting used each entry of an input of `shape` to fill `out_shape`."""
    count = 1
    for size, role in zip(tuple(out_shape), broadcast_roles(shape, out_shape)):
        if role != "kept":
            count *= size
    return count


def draw_broadcast(shape_a, shape_b, ax) -> None:
    """One panel: the output's dimensions, and what each input's gradient does with each of them."""
    from matplotlib.patches import Rectangle

    shape_a, shape_b = tuple(shape_a), tuple(shape_b)
    try:
        out = tuple(torch.broadcast_shapes(shape_a, shape_b))
    except RuntimeError as error:
        ax.text(0.5, 0.5, "not broadcastable:\n" + str(error).split("!")[0], ha="center", va="center",
                fontsize=12, wrap=True)
        ax.set_title(f"a {shape_a} * b {shape_b}", fontsize=13)
        ax.set_axis_off()
        return
    rows = [(out, None), (shape_a, broadcast_roles(shape_a, out)), (shape_b, broadcast_roles(shape_b, out))]
    for r, (shape, roles) in enumerate(rows):
        y = len(rows) - 1 - r
        offset = len(out) - len(shape)
        for i in range(len(out)):
            role = "output" if roles is None else roles[i]
            label = "–" if role == "summed away" else str(shape[i - offset])
            ax.add_patch(Rectangle((i + 0.05, y + 0.1), 0.9, 0.8, facecolor=COLOURS[role], edgecolor="black",
                                   linestyle="--" if role == "summed away" else "-"))
            ax.text(i + 0.5, y + 0.5, label, ha="center", va="center", fontsize=14)
        if not out:
            ax.text(0.5, y + 0.5, "scalar", ha="center", va="center", fontsize=12)
    ax.set_xlim(0, max(len(out), 1))
    ax.set_ylim(0, 3)
    ax.set_yticks([2.5, 1.5, 0.5], [f"output {out}", f"a {shape_a}", f"b {shape_b}"], fontsize=11)
    ax.set_xticks([i + 0.5 for i in range(len(out))], [f"{i} / {i - len(out)}" for i in range(len(out))],
                  fontsize=11)
    ax.set_xlabel("output dimension (index from the left / from the right)", fontsize=11)
    ax.set_ylabel("tensor", fontsize=11)
    ax.set_title(f"a {shape_a} * b {shape_b} → output {out}", fontsize=13)


def show_broadcast(*pairs, show: bool = True):
    """One panel per pair of shapes, e.g. show_broadcast((2, 3), (3,)) or show_broadcast(((2, 3), (3,)), ...).
    Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if len(pairs) == 2 and all(isinstance(size, int) for shape in pairs for size in shape):
        pairs = (pairs,)                      # show_broadcast((2, 3), (3,)): a single pair
    fig, axes = plt.subplots(len(pairs), 1, figsize=(7.5, 2.8 * len(pairs) + 0.4), squeeze=False)
    for ax, (shape_a, shape_b) in zip(axes[:, 0], pairs):
        draw_broadcast(shape_a, shape_b, ax)
    fig.legend(handles=[Patch(facecolor=COLOURS[k], edgecolor="black", label=v) for k, v in LEGEND.items()],
               loc="lower center", ncol=3, fontsize=11)
    fig.tight_layout(rect=(0, 0.4 / (2.8 * len(pairs) + 0.4) + 0.02, 1, 1))
    if show:
        plt.show()
    return fig


def describe_broadcast(shape_a, shape_b) -> list[str]:
    """For each input, what its gradient must sum over and how many times each of its entries was used."""
    try:
        out = tuple(torch.broadcast_shapes(tuple(shape_a), tuple(shape_b)))
    except RuntimeError as error:
        return [f"not broadcastable: {str(error).split('!')[0]}"]
    return [f"gradient of {name} {tuple(shape)}: {recipe(shape, out)} "
            f"(each entry used {copies(shape, out)} time(s))"
            for name, shape in (("a", shape_a), ("b", shape_b))]


def broadcast_explorer(a: str = "(4, 1, 3)", b: str = "(2, 1)", choices=SHAPE_CHOICES):
    """Two menus of shapes; each choice redraws the picture and prints `describe_broadcast`."""
    import ipywidgets as widgets

    def explore(a, b):
        shape_a, shape_b = ast.literal_eval(a), ast.literal_eval(b)
        show_broadcast((shape_a, shape_b))
        print("\n".join(describe_broadcast(shape_a, shape_b)))

    return widgets.interactive(explore,
                               a=widgets.Dropdown(options=list(choices), value=a, description="shape of a"),
                               b=widgets.Dropdown(options=list(choices), value=b, description="shape of b"))


def show_error_curves(title, scales, curves: dict, floor: float = 1e-10, broken: float = 10.0, show: bool = True):
    """Notebook 11: error of a value (left) and of its gradient (right) against the magnitude of the entries.

    `curves` maps a label to (value_errors, grad_errors), one number per scale, where errors below `floor` were
    recorded as `floor` and inf / nan results as `broken` (drawn in a red band). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
    for (label, (value_errors, grad_errors)), style in zip(curves.items(), ["o-", "s-", "x--", "d:"]):
        size = 9 if style == "o-" else 5
        axes[0].loglog(scales, value_errors, style, ms=size, label=label)
        axes[1].loglog(scales, grad_errors, style, ms=size, label=label)
    for ax, what in zip(axes, ["value: relative error", "gradient: largest absolute error"]):
        ax.axhspan(broken / 3, broken * 3, color="red", alpha=0.08)
        ax.text(1.2, broken * 1.4, "inf or nan", color="darkred", fontsize=9)
        ax.set_title(what, fontsize=11)
        ax.set_xlabel("magnitude of the entries (scale factor)", fontsize=11)
        ax.set_ylim(floor / 3, broken * 5)
    axes[0].set_ylabel("error (vs float64)", fontsize=11)
    axes[1].legend(fontsize=9, loc="center right")
    fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    if show:
        plt.show()
    return fig


def show_saved_and_compute(results: dict, depth: int, batch: int, show: bool = True):
    """Notebook 08: two bar charts over the ways of writing a network, from `results` mapping a name to
    (bytes saved for backward, forward runs of each Linear per step). Returns the figure."""
    import matplotlib.pyplot as plt

    names = list(results)
    megabytes = [results[n][0] / 2**20 for n in names]
    runs = [results[n][1] for n in names]
    colors = ["tab:gray", "tab:blue", "tab:green", "tab:orange"][:len(names)]
    plt.rcParams.update({"font.size": 11})
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.bar(names, megabytes, color=colors)
    left.set_title(f"Saved activations ({depth} blocks, batch {batch})")
    left.set_ylabel("megabytes kept for backward")
    right.bar(names, runs, color=colors)
    right.set_title("Compute: forward runs of each Linear per step")
    right.set_ylabel("runs per training step")
    right.set_yticks([0, 1, 2])
    for ax in (left, right):
        ax.set_xlabel("how the network is written")
        ax.tick_params(axis="x", labelrotation=15)
    fig.tight_layout()
    if show:
        plt.show()
    return fig


# ------------------------------------------------------------------------ notebook 13: fixes for sqrt at 0

def near_zero_sweep(fn, distances):
    """Notebook 13: `fn` applied to the 2-d differences (d, 0), one for each entry d of `distances` (float64).
    Returns (values, gradient lengths): the gradient of each value with respect to its difference, its length
    nan where the gradient has a nan or an inf."""
    diffs = torch.stack([distances, torch.zeros_like(distances)], dim=-1).to(torch.float64).requires_grad_(True)
    values = fn(diffs)
    (grad,) = torch.autograd.grad(values.sum(), diffs)
    lengths = torch.linalg.vector_norm(grad, dim=-1)
    return values.detach(), torch.where(torch.isfinite(grad).all(-1), lengths, float("nan"))


def show_fixes_near_zero(distances, curves: dict, show: bool = True):
    """Notebook 13: value (left) and gradient length (right) against the distance, for each way of computing a
    distance in `curves` (a label -> (values, gradient lengths), as near_zero_sweep returns). The distance axis
    is linear up to 1e-8, so distance 0 is drawn; a nan gradient is drawn in a red band above 1. Returns the
    figure."""
    import matplotlib.pyplot as plt

    d = torch.as_tensor(distances, dtype=torch.float64)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    styles = ["o-", "s--", "x-", "d:", "v-", "^--", "*-", "P:"]
    for (label, (values, lengths)), style in zip(curves.items(), styles):
        lengths = torch.as_tensor(lengths, dtype=torch.float64)
        broken = torch.isnan(lengths)
        left.plot(d, values, style, ms=4, label=label)
        line, = right.plot(d[~broken], lengths[~broken], style, ms=4, label=label)
        if bool(broken.any()):
            right.plot(d[broken], torch.full((int(broken.sum()),), 1.35), style[0], ms=9, color=line.get_color())
    left.plot(d, d, color="black", lw=0.8, alpha=0.5, label="the exact distance")
    left.set_xscale("symlog", linthresh=1e-8)
    left.set_yscale("symlog", linthresh=1e-8)
    left.set_title("value", fontsize=11)
    left.set_ylabel("computed distance", fontsize=11)
    right.axhspan(1.25, 1.45, color="red", alpha=0.08)
    right.text(d[1].item(), 1.38, "nan gradient", color="darkred", fontsize=9)
    right.axhline(1.0, color="black", lw=0.8, alpha=0.5)
    right.set_xscale("symlog", linthresh=1e-8)
    right.set_ylim(-0.05, 1.5)
    right.set_title("gradient length (exact: 1 away from 0)", fontsize=11)
    for ax in (left, right):
        ax.set_xlim(-3e-9, 2 * float(d.max()))
        ax.set_xlabel("distance between the two points (0 on the left)", fontsize=11)
    left.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    if show:
        plt.show()
    return fig


def show_saved_against_depth(depths, curves: dict, batch: int, width: int, show: bool = True):
    """Notebook 08: bytes kept for backward against the number of blocks, one line per way of writing the
    stack, from `curves` mapping a name to one byte count per depth. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for (name, counts), style in zip(curves.items(), ["o-", "s--", "d-", "x:"]):
        ax.plot(depths, [n / 2**20 for n in counts], style, label=name)
    ax.set_title(f"Saved activations against depth (width {width}, batch {batch})", fontsize=11)
    ax.set_xlabel("blocks in the stack", fontsize=11)
    ax.set_ylabel("megabytes kept for backward", fontsize=11)
    ax.set_xticks(list(depths))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=10)
    fig.tight_layout()
    if show:
        plt.show()
    return fig
