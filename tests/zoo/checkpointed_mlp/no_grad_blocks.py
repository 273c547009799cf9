# mistake: "saves memory" by running the blocks under torch.no_grad(), so nothing gets a gradient
# feedback: no_grad
# code: no-graph|graph-cut
# rule: values
# fails: values memory frozen_input
# score: 0/4
def checkpointed_mlp(x, layers):
    h = x
    with torch.no_grad():
        for layer in layers:
            h = F.silu(layer(h))
    return h
