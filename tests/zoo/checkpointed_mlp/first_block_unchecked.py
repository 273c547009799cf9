# mistake: runs the first block without checkpoint, so its Linear output and SiLU input are saved
# feedback: for every layer
# code: saves-too-much
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    h = F.silu(layers[0](x))
    for layer in layers[1:]:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=False)
    return h
