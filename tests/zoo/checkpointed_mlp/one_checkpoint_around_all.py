# mistake: one checkpoint around the whole stack: only x is kept, but backward recomputes every block at once (all activations alive together again)
# feedback: its own checkpoint
# code: blocks-recomputed-together
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    def run_all(h):
        for layer in layers:
            h = F.silu(layer(h))
        return h
    return checkpoint(run_all, x, use_reentrant=False)
