# style: nn.init.kaiming_uniform_ as nn.Linear does, parameters built in a helper, bias passed by keyword-free None, a print
def _uniform_parameter(*shape, bound):
    return nn.Parameter(torch.empty(*shape).uniform_(-bound, bound))


class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if bias:
            self.bias = _uniform_parameter(out_features, bound=1 / math.sqrt(in_features))
        else:
            self.bias = None
        print("built", self)

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
