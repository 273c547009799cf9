# mistake: forgets the SiLU after the last layer
# feedback: h = F.silu(layer(h))
# code: wrong-forward
# rule: values
# fails: values
# score: 3/4
def checkpointed_mlp(x, layers):
    h = x
    for i, layer in enumerate(layers):
        if i < len(layers) - 1:
            h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=False)
        else:
            h = checkpoint(layer, h, use_reentrant=False)
    return h
