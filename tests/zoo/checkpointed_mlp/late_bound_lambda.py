# mistake: checkpoints a lambda that looks the loop variable up late, so backward recomputes every block with the last layer
# feedback: last layer
# code: bad-recompute
# rule: values
# fails: values memory frozen_input
# score: 0/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t: F.silu(layer(t)), h, use_reentrant=False)
    return h
