# mistake: scales after wrapping (nn.Parameter(torch.rand(...)) * 2 * bound - bound): the result is a plain tensor computed from a parameter, not a parameter
# feedback: not an nn.Parameter
# code: not-a-parameter
# rule: parameters
# fails: parameters
# score: 2/3
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(torch.rand(out_features, in_features)) * 2 * bound - bound
        if bias:
            self.bias = nn.Parameter(torch.rand(out_features)) * 2 * bound - bound
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)
