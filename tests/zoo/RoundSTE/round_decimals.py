# mistake: torch.round(x, decimals=1) (rounds to tenths)
# feedback: torch.round
# code: wrong-forward
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x, decimals=1)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
