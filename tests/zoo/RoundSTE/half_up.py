# mistake: rounds with floor(x + 0.5), which rounds halves up instead of to even as torch.round does
# feedback: even
# code: wrong-ties
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.floor(x + 0.5)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
