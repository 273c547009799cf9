# mistake: applies the layers in reverse order
# feedback: cannot be multiplied
# code: crashes
# rule: values
# fails: frozen_input memory values
# score: 0/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in reversed(layers):
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=False)
    return h
