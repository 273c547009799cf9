"""What the checks observe of an answer's behaviour rather than ask it about, shared by several notebooks.

- A stand-in ctx (`stand_in_ctx`, here) for calling a Function's static methods directly, one at a time, with
  inputs the judge chose: it is a `torch.autograd.function.FunctionCtx` whose class is named like the node
  autograd would make (`CubeBackward`), with the real ctx's methods, and `saved_tensors` as a property that
  answers what backward (or, in `forward_mode`, what jvp) would read. It crosses to the learner's process by
  value (it is a `common.FakeCtx`), as every stand-in ctx does; its classes are made on first use, by this
  module's `__getattr__`, in both processes.
- `kept_by_graph(outputs)` (`behaviour/graph.py`): what an autograd graph keeps alive for backward, read from the
  graph itself, so neither the answer's own saved-tensor hooks nor a list on ctx hide a tensor from it.
- The real node (`behaviour/node.py`): what the node autograd made for `Fn.apply` saved and what else the call left
  alive (`real_node`), what the learner's backward returns with that node as its ctx (`real_backward`,
  `backward_by_its_node`), and `function_apply(Fn, *args)`, torch.autograd.Function's own `apply`, bound when
  the module is imported, for the probes that run torch.func transforms and forward-mode AD on a Function.

The checks import all of them from here.
"""

from __future__ import annotations

import re

from torch.autograd.function import FunctionCtx

from autograder.checks import common as c
from autograder.checks.behaviour.graph import CTX_OWN, kept_by_graph, on_ctx, storage_of, tensors_in  # noqa: F401
from autograder.checks.behaviour.node import (  # noqa: F401
    Returned, alive_after, backward_by_its_node, fresh, function_apply, raw_backward_of, real_backward, real_node,
    type_name,
)


# ------------------------------------------------------------------------------------------ stand-in ctx

class _StandIn(c.FakeCtx, FunctionCtx):
    """A ctx for direct calls. Its state lives in its attributes, which is how it crosses between processes."""

    save_for_backward = FunctionCtx.save_for_backward
    save_for_forward = FunctionCtx.save_for_forward
    mark_dirty = FunctionCtx.mark_dirty
    mark_non_differentiable = FunctionCtx.mark_non_differentiable
    set_materialize_grads = FunctionCtx.set_materialize_grads

    def __init__(self, needs_input_grad=()):
        vars(self)["_needs"] = tuple(bool(n) for n in needs_input_grad)

    @property
    def needs_input_grad(self):
        return vars(self).get("_needs", ())

    @property
    def saved_tensors(self):
        state = vars(self)
        found = state.get("saved_for_forward" if state.get("_forward") else "to_save")
        return tuple(found) if found is not None else ()

    @property
    def _save_calls(self):  # what common.FakeCtx's readers look at
        return int("to_save" in vars(self))

    def forward_mode(self, on: bool = True) -> "_StandIn":
        """From now on saved_tensors answers what jvp reads (the tensors given to save_for_forward)."""
        vars(self)["_forward"] = bool(on)
        return self


_NODE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,80}Backward")


_MADE: dict = {}  # name -> the stand-in ctx class of that name (kept out of the module's namespace)


def _ctx_class(name: str) -> type:
    cls = _MADE.get(name)
    if cls is None:
        cls = _MADE[name] = type(name, (_StandIn,), {"__module__": __name__, "__qualname__": name,
                                                     "__doc__": "The ctx of a direct call."})
    return cls


def __getattr__(name: str):
    """`<Function>Backward` classes are made on first use, in the judge's process and in the learner's alike."""
    if _NODE_NAME.fullmatch(name):
        return _ctx_class(name)
    raise AttributeError(name)


def stand_in_ctx(function_name: str, needs_input_grad=()) -> _StandIn:
    """A new stand-in ctx for `function_name`'s static methods (its class is `<function_name>Backward`)."""
    return _ctx_class(f"{function_name}Backward")(needs_input_grad)
