# mistake: uses the reentrant checkpoint, which loses the parameters' gradients when x does not require grad
# feedback: use_reentrant=False
# code: reentrant|reentrant-loses-grads
# rule: memory
# fails: memory frozen_input
# score: 1/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=True)
    return h
