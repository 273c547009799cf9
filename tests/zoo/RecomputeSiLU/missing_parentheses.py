# mistake: grad_output * s + x * s * (1 - s): the parentheses around the derivative are missing
# feedback: finite-difference
# code: ignores-grad-output|wrong-derivative
# rule: derivative
# fails: gradcheck graph
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * s + x * s * (1 - s)
