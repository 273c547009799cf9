"""Which part of a custom operator each consumer runs (notebook 11), counted on a real operator.

`registration_calls()` defines `course::counted_exp` (kernel, fake kernel, setup_context, backward, each counting
its calls), runs it through each consumer (an eager call, eager backward, torch.compile forward and backward,
the compiled code called a second time, torch.export) and returns, for each consumer, how many times it called each part. `show_registration_calls`
draws the table as a grid. matplotlib is imported only when the figure is drawn.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch

PARTS = ["kernel", "register_fake", "setup_context", "backward"]


def registration_calls() -> dict[str, dict[str, int]]:
    calls = Counter()

    def kernel(x: torch.Tensor) -> torch.Tensor:
        calls["kernel"] += 1
        return torch.from_numpy(np.asarray(np.exp(x.numpy(force=True)))).to(x.device)

    def fake(x):
        calls["register_fake"] += 1
        return torch.empty_like(x)

    def setup_context(ctx, inputs, output):
        calls["setup_context"] += 1
        ctx.save_for_backward(output)

    def backward(ctx, grad_output):
        calls["backward"] += 1
        (out,) = ctx.saved_tensors
        return grad_output * out

    op = torch.library.custom_op("course::counted_exp", kernel, mutates_args=())
    op.register_fake(fake)
    op.register_autograd(backward, setup_context=setup_context)

    class Module(torch.nn.Module):
        def forward(self, x):
            return op(x) * 2

    def eager():
        op(torch.randn(5))

    def eager_backward():
        op(torch.randn(5, requires_grad=True)).sum().backward()

    compiled_function = torch.compile(lambda t: op(t) * 2, backend="aot_eager", fullgraph=True)

    def compiled():
        torch.compiler.reset()
        compiled_function(torch.randn(5, requires_grad=True)).sum().backward()

    def compiled_again():                  # the same shapes: the code compiled above runs, nothing is traced
        compiled_function(torch.randn(5, requires_grad=True)).sum().backward()

    def exported():
        torch.export.export(Module(), (torch.randn(5),))

    table = {}
    for name, consumer in [("eager call", eager), ("eager call + backward", eager_backward),
                           ("torch.compile + backward", compiled),
                           ("the same, called again", compiled_again), ("torch.export", exported)]:
        calls.clear()
        consumer()
        table[name] = {part: calls[part] for part in PARTS}
    torch.compiler.reset()
    return table


def show_registration_calls(table: dict, show: bool = True):
    """A grid: one row per consumer, one column per part, each cell the number of calls (grey when 0)."""
    import matplotlib.pyplot as plt

    consumers = list(table)
    fig, ax = plt.subplots(figsize=(8.5, 0.6 * len(consumers) + 1.2))
    for r, consumer in enumerate(consumers):
        for c, part in enumerate(PARTS):
            count = table[consumer][part]
            ax.add_patch(plt.Rectangle((c, len(consumers) - 1 - r), 1, 1, edgecolor="white",
                                       facecolor="#9ad19a" if count else "#eeeeee"))
            ax.text(c + 0.5, len(consumers) - 0.5 - r, str(count) if count else "–", ha="center", va="center",
                    fontsize=11)
    ax.set_xlim(0, len(PARTS))
    ax.set_ylim(0, len(consumers))
    ax.set_xticks([c + 0.5 for c in range(len(PARTS))], PARTS, fontsize=10)
    ax.xaxis.tick_top()
    ax.set_yticks([len(consumers) - 0.5 - r for r in range(len(consumers))], consumers, fontsize=10)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title("calls of each part of course::counted_exp", fontsize=11, pad=24)
    fig.tight_layout()
    if show:
        plt.show()
    return fig
