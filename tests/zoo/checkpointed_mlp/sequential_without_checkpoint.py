# mistake: builds the network as one nn.Sequential of each layer and an nn.SiLU, and never checkpoints it
# feedback: checkpoint
# code: saves-too-much
# rule: memory
# fails: memory
# score: 2/4
def checkpointed_mlp(x, layers):
    network = torch.nn.Sequential(*[m for layer in layers for m in (layer, torch.nn.SiLU())])
    return network(x)
