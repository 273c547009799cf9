# style: every parameter through register_parameter, initialised with torch.rand scaled to +-1/sqrt(in)
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1.0 / math.sqrt(in_features)
        self.register_parameter("weight", nn.Parameter((torch.rand(out_features, in_features) * 2 - 1) * bound))
        self.register_parameter("bias", nn.Parameter((torch.rand(out_features) * 2 - 1) * bound) if bias else None)

    def forward(self, x):
        out = LinearFunction.apply(x, self.weight, self.bias)
        return out
