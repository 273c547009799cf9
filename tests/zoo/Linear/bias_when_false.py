# mistake: creates a bias parameter (of zeros) even when bias=False
# feedback: bias=False must create no bias
# code: bias-when-false
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
        else:
            self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)
