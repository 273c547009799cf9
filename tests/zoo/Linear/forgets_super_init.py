# mistake: forgets super().__init__(), so nn.Module cannot register the parameters
# feedback: super().__init__()
# code: no-super-init
# rule: parameters
# fails: parameters
# score: 2/3
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound, bound))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)
