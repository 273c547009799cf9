# mistake: backward passes only the sign of grad_output
# feedback: not grad_output
# code: wrong-ste-gradient
# rule: straight_through
# fails: backward
# score: 3/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return torch.sign(grad_output)
