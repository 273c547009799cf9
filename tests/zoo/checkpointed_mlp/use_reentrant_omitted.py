# mistake: omits use_reentrant, which on torch 2.13 warns and falls back to the reentrant variant
# feedback: use_reentrant=False
# code: use-reentrant-omitted
# rule: frozen_input
# fails: frozen_input
# family: reentrant
# score: 3/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h)
    return h
