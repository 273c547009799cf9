# mistake: makes the caller's x require grad (x.requires_grad_()) "so that checkpoint works", then reentrant checkpoint
# feedback: require grad
# code: reentrant-loses-grads
# rule: frozen_input
# fails: frozen_input
# score: 3/4
def checkpointed_mlp(x, layers):
    h = x.requires_grad_() if not x.requires_grad else x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=True)
    return h
