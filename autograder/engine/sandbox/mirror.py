"""In-place effects and identity, mirrored between the judge and the learner's copy, so that autograd's
version counters and `is` on both sides see what they would see in one process. Both halves live here.

    learner's side (after a call or a vjp)          judge's side (on the reply)
    changed: inputs whose values moved      ->      the same values copied into its inputs (x.data)
    bumped: inputs whose version moved      ->      their version counters moved too (x.mul_, not x.data)
    rebased: output j *is* input i, with    ->      output j comes back as input i itself, its history
             a new history (ctx.mark_dirty)         ending at the call's node
    dirty, dirty_outputs (before a vjp)     <-      inputs or outputs the judge changed in place after the call

A tensor with a history in the judge has one in the learner's copy too (a clone of a leaf there), so an
in-place op on it is as legal there as here; gradients go to that leaf.
"""

from __future__ import annotations

import torch

_increment_version = torch.autograd.graph.increment_version


# ------------------------------------------------------------------------------------ learner's side

class Before:
    """The inputs of a call as they were before it: values, version counters, histories."""

    __slots__ = ("values", "versions", "histories")

    def __init__(self, inputs: list):
        self.values = [t.detach().clone() for t in inputs]
        self.versions = [t._version for t in inputs]
        self.histories = [t.grad_fn for t in inputs]


def local_input(t: torch.Tensor, requires_grad: bool, leaf: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(the tensor the learner's code gets, the leaf behind it or None): a judge tensor with a history gets
    one here too, so an in-place Function (ctx.mark_dirty) may change it, as in one process."""
    if requires_grad and (t.is_floating_point() or t.is_complex()):
        t = t.requires_grad_(True)
        if not leaf:
            return t.clone(), t
    return t, None


def changed(inputs: list, before: Before) -> dict:
    """New values of the inputs the learner's code changed in place (NaN equal to NaN)."""
    found = {}
    for i, (t, old) in enumerate(zip(inputs, before.values)):
        now = t.detach()
        if now.shape != old.shape or now.dtype != old.dtype or not torch.equal(now, old) and not bool(
                ((now == old) | (now.isnan() & old.isnan())).all()):
            found[str(i)] = now.clone()
    return found


def reports_change(result) -> bool:
    """Whether a call's or a vjp's result says its inputs changed (in a plan, the last request to run)."""
    try:
        return type(result) is dict and any(type(result.get(k)) in (dict, list) and len(result[k]) > 0
                                            for k in ("changed", "bumped", "rebased"))
    except BaseException:  # noqa: BLE001 - a value that cannot say: the plan stops there
        return True


def bumped(inputs: list, before: Before) -> list:
    """The inputs whose version counter moved (an in-place op the counter saw; x.data.mul_() is not one)."""
    return [i for i, (t, version) in enumerate(zip(inputs, before.versions)) if t._version != version]


def identities(inputs: list, outputs: list) -> dict:
    """id(tensor) -> ["arg", i] or ["out", j]: which reply tensors are (by identity) an input or an output."""
    same = {id(t): ["arg", i] for i, t in enumerate(inputs)}
    same.update({id(t): ["out", j] for j, t in enumerate(outputs) if id(t) not in same})
    return same


def rebased(inputs: list, outputs: list, before: Before, same: dict) -> dict:
    """Output j -> input i for an input changed in place with autograd watching and returned (its history
    now ends at the call's node)."""
    return {str(j): same[id(o)][1] for j, o in enumerate(outputs)
            if id(o) in same and same[id(o)][0] == "arg" and o.grad_fn is not before.histories[same[id(o)][1]]}


def apply_judge_changes(inputs: list, outputs: list, dirty: dict, dirty_outputs: dict) -> None:
    """Before a vjp: what the judge changed in place after the call is changed here too (version counters)."""
    for tensors, values in ((inputs, dirty), (outputs, dirty_outputs)):
        for key, value in values.items():
            with torch.no_grad():
                tensors[int(key)].copy_(value)


# -------------------------------------------------------------------------------------- judge's side

def apply_learner_changes(tensors: list, result: dict) -> None:
    """The learner's x.data.zero_() happens here too, in x's own storage (views of x see it, as gradcheck's
    perturb-and-restore needs); an in-place op its version counter saw moves ours."""
    values = result.get("changed", {})
    for key, value in values.items() if type(values) is dict else ():
        i = int(key) if type(key) is str and key.isdigit() else -1
        if 0 <= i < len(tensors) and isinstance(value, torch.Tensor) and value.shape == tensors[i].shape:
            try:
                tensors[i].data.copy_(value)
            except RuntimeError:  # x cannot be written in place (an expanded tensor): replace its data
                tensors[i].data = value.to(tensors[i].dtype)
    moved = result.get("bumped", [])
    for i in moved if type(moved) is list else ():
        if type(i) is int and 0 <= i < len(tensors):
            _increment_version(tensors[i])


def rebased_pairs(result: dict, outputs: list, inputs: tuple) -> dict:
    """output index -> input index, for outputs that are (by identity) an input given a new history there;
    only pairs of the same shape and dtype, each input once."""
    reported = result.get("rebased")
    found: dict = {}
    for key, i in reported.items() if type(reported) is dict else ():
        j = int(key) if type(key) is str and key.isdigit() else -1
        if 0 <= j < len(outputs) and type(i) is int and 0 <= i < len(inputs) and i not in found.values() \
                and outputs[j] is not None and outputs[j].shape == inputs[i].shape \
                and outputs[j].dtype == inputs[i].dtype:
            found[j] = i
    return found


def judge_changes(inputs: tuple, versions: list, output_refs: list) -> tuple[dict, dict]:
    """(dirty inputs, dirty outputs): what the judge changed in place since the call, for the learner's copy
    to change before a vjp."""
    dirty = {str(i): t.detach().clone() for i, t in enumerate(inputs) if t._version != versions[i]}
    dirty_outputs = {str(j): ref().detach().clone() for j, ref, version in output_refs
                     if ref() is not None and ref()._version != version}
    return dirty, dirty_outputs
