# mistake: uses the detach trick inside a custom apply, so no RoundSTE node is ever recorded
# feedback: .apply
# code: forward-called-directly
# rule: graph
# fails: graph
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

    @staticmethod
    def apply(x):
        return x + (torch.round(x) - x).detach()
