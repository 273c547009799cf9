# mistake: the checkpointed function runs under torch.no_grad() to "not save anything", so recompute has no graph
# feedback: no_grad
# code: graph-cut|no-graph
# rule: values
# fails: frozen_input memory values
# score: 0/4
def checkpointed_mlp(x, layers):
    def block(t, layer):
        with torch.no_grad():
            return F.silu(layer(t))

    h = x
    for layer in layers:
        h = checkpoint(block, h, layer, use_reentrant=False)
    return h
