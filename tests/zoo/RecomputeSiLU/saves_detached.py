# mistake: saves x.detach(), an alias of x, not x itself
# feedback: with x itself
# code: saves-too-much
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.detach())
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))
