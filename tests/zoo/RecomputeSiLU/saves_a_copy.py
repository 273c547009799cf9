# mistake: saves a clone of x, so an in-place change of x goes unnoticed (and x is not what is saved)
# feedback: save_for_backward
# code: saves-a-copy
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.clone())
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))
