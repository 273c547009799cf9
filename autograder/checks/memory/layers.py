"""The layers and the byte counts the checks of notebook 08 share (see `memory`).

- What autograd saved under a pack hook (`record_saved`) and how many bytes its distinct storages hold
  (`distinct_bytes`, parameters left out).
- Seeded Linear layers, drawn without touching the global random generator: `JudgeLinear`s, which cross to the
  learner's process by value (weight and bias) so the judge holds the parameters and differentiates the call like
  any other, the nn.Linear layers with the same weights (`make_layers`, `layers_from`) that the probe builds in the
  learner's process, and the plain composition they are compared with (`plain_mlp`).
"""

from __future__ import annotations

import torch

from autograder.checks import common as c


def record_saved(fn):
    """Run `fn()` under a pack hook; return (its output, the list of tensors autograd saved for backward)."""
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = fn()
    return out, saved


def storage_key(tensor) -> int:
    return tensor.untyped_storage().data_ptr()


def distinct_bytes(tensors, exclude=()) -> int:
    """Bytes of the distinct storages behind `tensors` (storages in `exclude`, e.g. parameters, skipped)."""
    seen = {}
    skip = set(exclude)
    for t in tensors:
        key = storage_key(t)
        if key not in skip:
            seen[key] = t.untyped_storage().nbytes()
    return sum(seen.values())


class JudgeLinear(c.FakeCtx):
    """A Linear layer that crosses to the learner's process by value, its weight and bias with it: the judge
    keeps the parameters, and the learner's call is one node of the judge's graph, gradients included.
    `layer(h)` is F.linear(h, weight, bias); `in_features`, `out_features` and `parameters()` as nn.Linear."""

    def __init__(self, weight, bias):
        vars(self).update(weight=weight, bias=bias)

    def __call__(self, h):
        return torch.nn.functional.linear(h, self.weight, self.bias)

    forward = __call__

    @property
    def in_features(self) -> int:
        return self.weight.shape[1]

    @property
    def out_features(self) -> int:
        return self.weight.shape[0]

    def parameters(self):
        return iter((self.weight, self.bias))

    def __repr__(self) -> str:
        return f"Linear(in_features={self.in_features}, out_features={self.out_features})"


def seeded_weights(widths, seed, dtype=torch.float64):
    """Seeded (weight, bias) of each layer (no draw from the global random generator)."""
    return [(c.randn(n_out, n_in, seed=seed + 31 * i, dtype=dtype) / n_in ** 0.5,
             c.randn(n_out, seed=seed + 31 * i + 1, dtype=dtype) * 0.5)
            for i, (n_in, n_out) in enumerate(zip(widths, widths[1:]))]


def judge_layers(widths, seed):
    """JudgeLinear layers with the weights `make_layers` gives the same (widths, seed): leaves of the judge."""
    return [JudgeLinear(w.detach().requires_grad_(), b.detach().requires_grad_()) for w, b in seeded_weights(widths, seed)]


def make_layers(widths, seed, dtype=torch.float64):
    """nn.Linear layers with seeded weights (no draw from the global random generator)."""
    return layers_from(seeded_weights(widths, seed, dtype))


def layers_from(weights) -> list:
    """nn.Linear layers holding copies of (weight, bias) pairs."""
    layers = []
    for weight, bias in weights:
        n_out, n_in = weight.shape
        with torch.random.fork_rng(devices=[]):  # the default init draws from the global generator: restore it
            layer = torch.nn.Linear(n_in, n_out, dtype=weight.dtype)
        with torch.no_grad():
            layer.weight.copy_(weight)
            layer.bias.copy_(bias)
        layers.append(layer)
    return layers


def plain_mlp(x, layers):
    h = x
    for layer in layers:
        h = torch.nn.functional.silu(layer(h))
    return h


def parameters_of(layers):
    return [p for layer in layers for p in (layer.weight, layer.bias)]


def parameter_keys(layers):
    return {storage_key(p) for p in parameters_of(layers)}
