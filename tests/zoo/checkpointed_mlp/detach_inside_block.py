# mistake: detaches the block's input inside the checkpointed function, cutting the graph to x and earlier layers
# feedback: detach
# code: graph-cut
# rule: values
# fails: memory values
# score: 1/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t.detach())), h, use_reentrant=False)
    return h
