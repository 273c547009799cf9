# mistake: checkpoints the Linear and the SiLU separately, so the pre-activation is kept for the SiLU's checkpoint too
# feedback: whole block
# code: saves-too-much
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(layer, h, use_reentrant=False)
        h = checkpoint(F.silu, h, use_reentrant=False)
    return h
