# mistake: keeps x as a plain ctx attribute instead of ctx.save_for_backward
# feedback: save_for_backward
# code: nothing-saved
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.x
        s = torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))
