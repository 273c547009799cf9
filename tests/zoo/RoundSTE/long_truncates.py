# mistake: rounds with .long() and back, which truncates toward zero
# feedback: round
# code: wrong-forward
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.long().to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
