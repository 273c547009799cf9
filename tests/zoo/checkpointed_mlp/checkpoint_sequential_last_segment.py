# mistake: checkpoint_sequential with one segment per block: it leaves the last segment unchecked, so the last block keeps its activations
# feedback: Linear AND SiLU
# code: saves-too-much
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    from torch.utils.checkpoint import checkpoint_sequential
    blocks = [torch.nn.Sequential(layer, torch.nn.SiLU()) for layer in layers]
    return checkpoint_sequential(torch.nn.Sequential(*blocks), len(blocks), x, use_reentrant=False)
