# mistake: uses ReLU instead of SiLU in each block
# feedback: F.silu
# code: wrong-forward
# rule: values
# fails: values
# score: 3/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: torch.relu(layer(t)), h, use_reentrant=False)
    return h
