# mistake: saves only sigmoid(x) and recovers x as logit(s) in backward: s rounds to 1 for large x, so x comes back inf
# feedback: sigmoid
# code: unstable|saves-too-much
# rule: derivative saved
# fails: values saved
# score: 2/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(s)
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        x = torch.logit(s)
        return grad_output * (s + x * s * (1 - s))
