# mistake: keeps weight and bias as plain tensors that do not even require grad, so nothing ever trains them
# feedback: not an nn.Parameter
# code: not-a-parameter
# rule: parameters
# fails: parameters
# score: 2/3
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = (torch.rand(out_features, in_features) * 2 - 1) * bound
        self.bias = (torch.rand(out_features) * 2 - 1) * bound if bias else None

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)
