# style: F.silu(..., inplace=True) on the layer's fresh output inside each checkpointed block
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t), inplace=True), h, use_reentrant=False)
    return h
