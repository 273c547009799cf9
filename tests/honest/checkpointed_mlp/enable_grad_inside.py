# style: the block function runs under torch.enable_grad() (a no-op here: checkpoint decides what is kept)
def checkpointed_mlp(x, layers):
    def block(t, layer):
        with torch.enable_grad():
            return F.silu(layer(t))

    h = x
    for layer in layers:
        h = checkpoint(block, h, layer, use_reentrant=False)
    return h
