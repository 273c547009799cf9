# mistake: torch.round(x, out=x): the result is written into the caller's x, and a copy returned
# feedback: in place
# code: modifies-input
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        torch.round(x, out=x)
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
