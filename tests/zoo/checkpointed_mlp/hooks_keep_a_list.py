# mistake: the plain loop under hooks of its own that keep every saved tensor in a global list (the graph holds numbers), and a hook that runs each layer once in backward
# feedback: kept
# code: saves-too-much
# rule: memory
# fails: memory
# score: 2/4
_kept = []


def _pack(t):
    _kept.append(t)
    return len(_kept) - 1


def checkpointed_mlp(x, layers):
    with torch.autograd.graph.saved_tensors_hooks(_pack, lambda i: _kept[i]):
        h = x
        for layer in layers:
            h = F.silu(layer(h))

    def rerun(grad):
        with torch.no_grad():
            for layer in layers:
                layer(torch.ones(layer.in_features, dtype=layer.weight.dtype))
        return grad

    if h.requires_grad:
        h.register_hook(rerun)
    return h
