# style: an inner function taking the layer as an argument, checkpoint with extra keyword arguments
def checkpointed_mlp(x, layers):
    def block(inp, lin):
        return F.silu(lin(inp))

    out = x
    for lin in layers:
        out = checkpoint(block, out, lin, use_reentrant=False, preserve_rng_state=False)
    return out
