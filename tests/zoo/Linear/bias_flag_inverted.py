# mistake: tests `if not bias` where it means `if bias`: Linear(3, 2) gets no bias and Linear(3, 2, False) gets one
# feedback: must create one
# code: no-bias
# rule: parameters
# fails: parameters
# score: 2/3
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound, bound))
        if not bias:
            self.bias = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)
