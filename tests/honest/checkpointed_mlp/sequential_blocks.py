# style: each block built as an nn.Sequential of the layer and an nn.SiLU module, checkpointed whole, with a print
def checkpointed_mlp(x, layers):
    h = x
    for i, layer in enumerate(layers):
        block = torch.nn.Sequential(layer, torch.nn.SiLU())
        h = checkpoint(block, h, use_reentrant=False)
    print("blocks:", len(layers), "output shape:", tuple(h.shape))
    return h
