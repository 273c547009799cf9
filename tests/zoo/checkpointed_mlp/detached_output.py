# mistake: detaches each block's output "to free the graph", so nothing before the last block gets a gradient
# feedback: detach
# code: no-graph|graph-cut
# rule: values
# fails: values memory frozen_input
# score: 0/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: F.silu(layer(t)), h, use_reentrant=False).detach()
    return h
