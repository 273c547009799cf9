# mistake: detaches each block's input before checkpointing it, cutting the graph to x and the earlier layers
# feedback: detach
# code: graph-cut
# rule: values
# fails: values memory
# score: 1/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h.detach().requires_grad_(), use_reentrant=False)
    return h
