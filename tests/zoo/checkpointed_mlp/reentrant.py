# mistake: uses the reentrant checkpoint, which loses the parameters' gradients when x does not require grad
# feedback: use_reentrant=False
# code: reentrant-loses-grads
# rule: frozen_input
# fails: frozen_input
# score: 3/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=True)
    return h
