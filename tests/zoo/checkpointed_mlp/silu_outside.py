# mistake: checkpoints only the Linear and applies the SiLU outside, so the SiLU's input is saved anyway
# feedback: Linear AND SiLU
# code: saves-too-much
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = F.silu(checkpoint(layer, h, use_reentrant=False))
    return h
