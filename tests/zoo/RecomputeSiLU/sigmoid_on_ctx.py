# mistake: saves only x with save_for_backward but keeps sigmoid(x) as a ctx attribute, so nothing is saved
# feedback: ctx.s
# code: ctx-attribute
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.s = torch.sigmoid(x)
        return x * ctx.s

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = ctx.s
        return grad_output * (s + x * s * (1 - s))
