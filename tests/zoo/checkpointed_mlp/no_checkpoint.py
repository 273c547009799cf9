# mistake: the plain loop, without any checkpoint: right values, but every activation is kept
# feedback: checkpoint
# code: saves-too-much
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = F.silu(layer(h))
    return h
