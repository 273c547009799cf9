# mistake: saves sigmoid(x) as well as x, which is exactly the memory the Function should not keep
# feedback: sigmoid(x)
# code: saves-too-much
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        x, s = ctx.saved_tensors
        return grad_output * (s + x * s * (1 - s))
