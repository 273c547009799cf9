# mistake: rounds x itself (x.round_()) and returns a copy: the caller's x is changed behind its back
# feedback: in place
# code: modifies-input
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.round_().clone()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
