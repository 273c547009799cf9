# mistake: with bias=False never defines self.bias (forward falls back on getattr), so m.bias raises AttributeError
# feedback: bias` attribute set to None
# code: no-bias-attribute
# rule: parameters
# fails: parameters
# score: 2/3
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound, bound))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, getattr(self, "bias", None))
