# mistake: checkpoints the blocks two at a time, so backward recomputes each pair together
# feedback: its own checkpoint
# code: blocks-recomputed-together
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    def pair(h, first, second=None):
        h = F.silu(first(h))
        return F.silu(second(h)) if second is not None else h

    h = x
    for i in range(0, len(layers), 2):
        h = checkpoint(pair, h, *layers[i:i + 2], use_reentrant=False)
    return h
