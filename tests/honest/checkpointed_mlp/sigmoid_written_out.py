# style: SiLU written out as t * torch.sigmoid(t) inside each checkpointed block
def checkpointed_mlp(x, layers):
    h = x
    for layer in layers:
        h = checkpoint(lambda t, layer=layer: (lambda z: z * torch.sigmoid(z))(layer(t)), h, use_reentrant=False)
    return h
