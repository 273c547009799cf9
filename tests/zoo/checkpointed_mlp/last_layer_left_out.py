# mistake: loops over layers[:-1] (the last block is left out)
# feedback: shape
# code: wrong-shape
# rule: values
# fails: values
# score: 3/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers[:-1]:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=False)
    return h
