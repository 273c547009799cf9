# mistake: the bias is a plain tensor with requires_grad, not an nn.Parameter
# feedback: nn.Parameter
# code: not-a-parameter
# rule: parameters
# fails: parameters
# score: 2/3
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound, bound))
        if bias:
            self.bias = torch.empty(out_features).uniform_(-bound, bound).requires_grad_()
        else:
            self.bias = None

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)
