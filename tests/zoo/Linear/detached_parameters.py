# mistake: passes self.weight.detach() and self.bias.detach() to .apply, so the parameters never get a gradient
# feedback: got no gradient
# code: missing-gradient
# rule: forward
# fails: forward
# score: 2/3
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound, bound))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        bias = None if self.bias is None else self.bias.detach()
        return LinearFunction.apply(x, self.weight.detach(), bias)
