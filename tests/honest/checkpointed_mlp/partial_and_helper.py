# style: a helper for one block, bound with functools.partial, and a check of the widths as it goes
import functools


def _linear_silu(layer, t):
    return F.silu(layer(t))


def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        assert h.shape[-1] == layer.in_features, (h.shape, layer.in_features)
        h = checkpoint(functools.partial(_linear_silu, layer), h, use_reentrant=False)
    return h
