"""Small instruments the lessons use more than once, so that a lesson cell shows the idea, not the plumbing.

    from autograder.lab import count_nodes, expect_error, record_saved, distinct_bytes

- `count_nodes(y)`: how many backward nodes autograd recorded for `y` (notebooks 00, 07, 13).
- `expect_error(fn, RuntimeError, "text")`: run `fn`, require that error, print its first line (09, 12, ...).
- `record_saved(fn)` and `distinct_bytes(tensors)`: what autograd saved for backward while `fn` ran, and how
  many bytes of memory that is (00, 07, 08, 14). Notebook 08 builds this meter from `saved_tensors_hooks`
  step by step; elsewhere it is imported.
"""

from __future__ import annotations

from typing import Callable, Iterable

import torch


def count_nodes(tensor: torch.Tensor, *, leaves: bool = True) -> int:
    """The backward nodes reachable from `tensor.grad_fn`; `leaves=False` leaves out the leaves' gradient
    accumulators (`AccumulateGrad`), so only operations are counted."""
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    if not leaves:
        seen = {node for node in seen if type(node).__name__ != "AccumulateGrad"}
    return len(seen)


def expect_error(fn: Callable[[], object], error_type: type[BaseException], text: str) -> str:
    """Run `fn()`; it must raise `error_type` with `text` in its message. Prints the message's first line and
    returns the whole message."""
    try:
        fn()
    except error_type as error:
        message = str(error)
        assert text in message, message
        print(f"{error_type.__name__}: {message.splitlines()[0][:110] if message else ''}")
        return message
    raise AssertionError(f"expected {error_type.__name__} containing {text!r}, but nothing was raised")


def record_saved(fn: Callable[[], object]) -> tuple[object, list[torch.Tensor]]:
    """Run `fn()` and return (its output, every tensor autograd saved for backward meanwhile), through
    `torch.autograd.graph.saved_tensors_hooks` (what `ctx.x = x` keeps is not among them)."""
    saved: list[torch.Tensor] = []

    def pack(tensor):
        saved.append(tensor)
        return tensor  # kept as is: the meter only watches

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = fn()
    return out, saved


def distinct_bytes(tensors: Iterable[torch.Tensor], skip: Iterable[torch.Tensor] = ()) -> int:
    """Bytes of the distinct storages behind `tensors` (a tensor saved twice, or a view of another, counts
    once), leaving out the storages of `skip` (parameters, or the inputs, when only new memory matters)."""
    skipped = {t.untyped_storage().data_ptr() for t in skip}
    sizes = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors}
    return sum(n for pointer, n in sizes.items() if pointer not in skipped)
