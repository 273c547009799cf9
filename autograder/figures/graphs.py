"""The backward graph a call builds, read from the real autograd objects and drawn: `show_graph(out, x=x)`.

`backward_graph(output, x=x, ...)` walks `output.grad_fn` and its `next_functions` and describes each node:
its class name (`SquareBackward`, `MulBackward0`, `AccumulateGrad`, ...), what it saved for backward (a custom
Function's `saved_tensors`, a built-in node's `_saved_*` attributes), what a custom Function keeps as plain
`ctx` attributes, and the state of each saved tensor now: kept (with its version counter), freed by backward,
or changed in place since it was saved (the version it was saved at and the one it is at). Saved tensors are
named after the tensors passed as keywords when they are the very same memory (`x`, `output`, "a view of x"),
otherwise "an intermediate". `show_graph` draws the description (one panel per output) and returns it, so a
lesson cell can assert what the figure shows. matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import torch

FREED = "freed"          # backward (or an earlier access) released it
MODIFIED = "modified"    # changed in place after it was saved: backward would raise
KEPT = "kept"

STALE_MESSAGE = re.compile(r"is at version (\d+); expected version (\d+) instead")


@dataclass
class Saved:
    """One thing a node keeps for backward."""

    slot: str                  # "saved_tensors[0]", "self", "result", "ctx.x", ...
    what: str                  # "x", "output", "a view of x", "an intermediate (3,)", "2.0"
    state: str = KEPT          # KEPT, FREED or MODIFIED (for tensors)
    version: int | None = None         # the tensor's version counter now
    saved_version: int | None = None   # the version it was saved at, when it has changed since
    guarded: bool = True       # False for a tensor kept as a plain ctx attribute: no version check

    def label(self) -> str:
        if self.state == FREED:
            return f"{self.slot}: freed"
        if self.state == MODIFIED:
            return f"{self.slot}: {self.what}, version {self.version}, saved at {self.saved_version}"
        version = "" if self.version is None else f", version {self.version}"
        unguarded = " (unguarded)" if not self.guarded else ""
        return f"{self.slot}: {self.what}{version}{unguarded}"


@dataclass
class Node:
    name: str
    saved: list[Saved] = field(default_factory=list)
    inputs: list[int | None] = field(default_factory=list)   # index of each next node; None: no gradient
    grad_of: str | None = None        # an AccumulateGrad's leaf, by name

    @property
    def title(self) -> str:
        return f"{self.name}\n→ {self.grad_of}.grad" if self.grad_of else self.name


@dataclass
class Graph:
    nodes: list[Node]                 # nodes[0] is the output's grad_fn

    def names(self) -> list[str]:
        return [node.name for node in self.nodes]

    def node(self, name: str) -> Node:
        matches = [node for node in self.nodes if node.name == name]
        if len(matches) != 1:
            raise KeyError(f"{len(matches)} nodes named {name!r} in {self.names()}")
        return matches[0]

    def saved(self, name: str) -> list[Saved]:
        return self.node(name).saved

    def count(self, name: str) -> int:
        return sum(node.name == name for node in self.nodes)


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> str | None:
    """'same' when a and b are the same elements, 'view' when a only shares b's storage, else None."""
    try:
        if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr() or a.device != b.device:
            return None
    except (RuntimeError, NotImplementedError):      # fake or functional tensors have no storage to compare
        return "same" if a is b else None
    if a.storage_offset() == b.storage_offset() and a.shape == b.shape and a.stride() == b.stride():
        return "same"
    return "view"


def _name_tensor(t: torch.Tensor, names: dict) -> str:
    for name, other in names.items():
        if t is other:
            return name
    views = []
    for name, other in names.items():
        same = _same_memory(t, other)
        if same == "same":
            return name
        if same == "view":
            views.append(name)
    if views:
        return f"a view of {views[0]}"
    return f"an intermediate {tuple(t.shape)}"


def _describe_value(value, names: dict) -> tuple[str, int | None]:
    if isinstance(value, torch.Tensor):
        return _name_tensor(value, names), value._version
    text = repr(value)
    return (text if len(text) <= 18 else text[:15] + "..."), None


def _saved_of_function(node, names: dict) -> list[Saved]:
    """A custom Function's node: its ctx.saved_tensors, then its plain ctx attributes."""
    saved = []
    try:
        tensors = node.saved_tensors
    except RuntimeError as error:
        message = str(error)
        try:
            count = len(node._raw_saved_tensors)
        except RuntimeError:                 # freed: how many there were is gone too
            count = 0
        slots = [f"saved_tensors[{i}]" for i in range(count)] or ["saved_tensors"]
        stale = STALE_MESSAGE.search(message)
        if stale:
            # the message gives the versions of the first stale tensor; which one it is, it does not say
            saved = [Saved(slot, "a saved tensor", MODIFIED, int(stale.group(1)), int(stale.group(2)))
                     for slot in slots]
        elif "already been freed" in message:
            saved = [Saved(slot, "", FREED) for slot in slots]
        else:
            raise
    else:
        for i, t in enumerate(tensors):
            what, version = _describe_value(t, names)
            saved.append(Saved(f"saved_tensors[{i}]", what, KEPT, version))
    for attribute, value in vars(node).items():
        if attribute.startswith("_") or callable(value):
            continue
        what, version = _describe_value(value, names)
        saved.append(Saved(f"ctx.{attribute}", what, KEPT, version, guarded=not isinstance(value, torch.Tensor)))
    return saved


def _saved_of_builtin(node, names: dict) -> list[Saved]:
    saved = []
    for attribute in sorted(a for a in dir(node) if a.startswith("_saved_")):
        slot = attribute[len("_saved_"):]
        try:
            value = getattr(node, attribute)
        except RuntimeError as error:
            if "already been freed" not in str(error):
                raise
            saved.append(Saved(slot, "", FREED))
            continue
        if isinstance(value, torch.Tensor) or value is None:
            if value is None:
                continue
            what, version = _describe_value(value, names)
            saved.append(Saved(slot, what, KEPT, version))
    return saved


def backward_graph(output: torch.Tensor, **names: torch.Tensor) -> Graph:
    """Describe the graph behind `output` (the nodes backward would run), naming saved tensors after
    `names` (plus `output` itself)."""
    if output.grad_fn is None:
        raise ValueError("this tensor has no grad_fn: nothing recorded a backward graph for it")
    names = {**names}
    names.setdefault("output", output)
    order, index = [], {}

    def visit(fn):
        if fn in index:
            return index[fn]
        index[fn] = len(order)
        node = Node(type(fn).__name__)
        order.append((fn, node))
        if hasattr(fn, "variable"):                                  # AccumulateGrad: its leaf
            leaf = fn.variable
            named = [name for name, t in names.items() if name != "output" and t is leaf]
            node.grad_of = named[0] if named else f"a leaf {tuple(leaf.shape)}"
        elif isinstance(fn, torch.autograd.function.BackwardCFunction):
            node.saved = _saved_of_function(fn, names)
        else:
            node.saved = _saved_of_builtin(fn, names)
        node.inputs = [None if nxt is None else visit(nxt) for nxt, _ in fn.next_functions]
        return index[fn]

    visit(output.grad_fn)
    return Graph([node for _, node in order])


# ------------------------------------------------------------------------------------------------ drawing

COLOURS = {"function": "#f5d08a", "builtin": "#b7c9e8", "leaf": "#9ad19a", KEPT: "black", FREED: "#888888",
           MODIFIED: "#c0392b"}


def _layers(graph: Graph) -> list[int]:
    """Each node's depth: the longest path from the output's node, so every arrow points down."""
    depth = [0] * len(graph.nodes)
    for _ in graph.nodes:                              # relax until stable (graphs here are small and acyclic)
        changed = False
        for i, node in enumerate(graph.nodes):
            for j in node.inputs:
                if j is not None and depth[j] < depth[i] + 1:
                    depth[j], changed = depth[i] + 1, True
        if not changed:
            break
    return depth


LINE = 0.22            # inches of figure height for one line of text
COLUMN = 3.3           # inches of figure width for one node


def _rows(graph: Graph) -> dict[int, list[int]]:
    rows: dict[int, list[int]] = {}
    for i, d in enumerate(_layers(graph)):
        rows.setdefault(d, []).append(i)
    return rows


def _width(graph: Graph) -> int:
    """Columns: the widest row, plus one for the "None" gradients when there are any."""
    extra = any(j is None for node in graph.nodes for j in node.inputs)
    return max(len(members) for members in _rows(graph).values()) + extra


def _row_heights(graph: Graph) -> list[float]:
    """In lines of text: a node's title (two lines for AccumulateGrad), its saved items, then room for arrows."""
    rows = _rows(graph)
    return [max((2.4 if graph.nodes[i].grad_of else 1.6) + 1.25 * len(graph.nodes[i].saved) for i in rows[d]) + 3.2
            for d in sorted(rows)]


def draw_graph(graph: Graph, ax, title: str | None = None, lines: float | None = None) -> None:
    """One panel: nodes as boxes (output's node on top, leaves at the bottom), their saved items under them,
    an arrow for each gradient backward hands on, labelled with its position among the node's inputs."""
    rows = _rows(graph)
    layer = _layers(graph)
    heights = _row_heights(graph)
    width = _width(graph)
    extra = any(j is None for node in graph.nodes for j in node.inputs)    # a column kept for "None" labels
    position, bottom = {}, {}
    top = 0.0
    for d in sorted(rows):
        for k, i in enumerate(rows[d]):
            position[i] = ((k + 0.5) * (width - extra) / len(rows[d]), top)
            node = graph.nodes[i]
            bottom[i] = top - (2.6 if node.grad_of else 1.8) - 1.25 * len(node.saved)
        top -= heights[d]
    for i, node in enumerate(graph.nodes):
        x, y = position[i]
        colour = (COLOURS["leaf"] if node.grad_of else
                  COLOURS["function"] if any(s.slot.startswith(("saved_tensors", "ctx.")) for s in node.saved)
                  or node.name.endswith("Backward") else COLOURS["builtin"])
        ax.text(x, y, node.title, ha="center", va="top", fontsize=10, fontweight="bold",
                bbox=dict(boxstyle="round,pad=0.35", facecolor=colour, edgecolor="black"), zorder=3)
        for k, item in enumerate(node.saved):
            ax.text(x, y - (2.6 if node.grad_of else 1.8) - 1.25 * k, item.label(), ha="center", va="top", fontsize=8.5,
                    color=COLOURS[item.state], zorder=3,
                    bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor="#cccccc"))
        edges: dict[int, list[int]] = {}
        for slot, j in enumerate(node.inputs):
            edges.setdefault(-1 - slot if j is None else j, []).append(slot)
        for j, slots in edges.items():
            label = "grad " + ", ".join(map(str, slots)) if len(node.inputs) > 1 else ""
            if j < 0:                                     # no next node: nobody needs this gradient
                tx, ty = x + 0.9, bottom[i] - 1.6
                ax.annotate("", xy=(tx, ty), xytext=(x, bottom[i] - 0.3),
                            arrowprops=dict(arrowstyle="->", color="#aaaaaa", lw=1.0, linestyle="--"))
                ax.text(tx, ty - 0.2, f"{label}: None\n(input needs no gradient)", ha="center", va="top",
                        fontsize=8.5, color="#777777", style="italic")
                continue
            tx, ty = position[j]
            skips = layer[j] - layer[i] > 1 and abs(tx - x) < 0.3          # would run through the nodes between
            start = (x + 0.3, y - 0.5) if skips else (x, bottom[i] - 0.3)
            end = (tx + 0.3, ty - 0.9) if skips else (tx, ty + 0.5)
            ax.annotate("", xy=end, xytext=start, zorder=1,
                        arrowprops=dict(arrowstyle="->", color="#555555", lw=1.2,
                                        connectionstyle="arc3,rad=-0.3" if skips else "arc3"))
            if label:
                lx = x + 0.42 if skips else x + 0.3 * (tx - x)
                ly = y - 1.6 if skips else start[1] + 0.3 * (end[1] - start[1])
                ax.text(lx, ly, label, fontsize=8.5, color="#555555", ha="center", va="center", zorder=2,
                        bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none"))
    ax.set_xlim(0, width)
    ax.set_ylim(-(lines if lines is not None else -top + 1.2), 0.8)
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=11)


def show_graph(*outputs: torch.Tensor, titles=None, show: bool = True, **names: torch.Tensor):
    """Draw the backward graph of each output side by side, e.g. `show_graph(Square.apply(x), x=x)`. An output
    may also be a Graph that `backward_graph` described earlier (the graph as it was then). Returns the Graph
    (or a list of Graphs, one for each output) that the figure shows."""
    import matplotlib.pyplot as plt

    graphs = [out if isinstance(out, Graph) else backward_graph(out, **names) for out in outputs]
    titles = list(titles) if titles is not None else [None] * len(graphs)
    lines = max(sum(_row_heights(g)) for g in graphs) - 1.5    # no arrows below the last row
    widths = [_width(g) for g in graphs]
    fig, axes = plt.subplots(1, len(graphs), figsize=(COLUMN * sum(widths), LINE * lines + 0.5),
                             squeeze=False, gridspec_kw={"width_ratios": widths})
    for ax, graph, title in zip(axes[0], graphs, titles):
        draw_graph(graph, ax, title, lines)
    fig.tight_layout()
    if show:
        plt.show()
    return graphs[0] if len(graphs) == 1 else graphs
