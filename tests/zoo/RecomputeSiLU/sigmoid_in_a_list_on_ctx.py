# mistake: saves x, but keeps sigmoid(x) for backward in a list on ctx, so nothing is saved by recomputing
# feedback: ctx.cache
# code: ctx-attribute
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = torch.sigmoid(x)
        ctx.cache = [s]
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        (s,) = ctx.cache
        return grad_output * (s + x * s * (1 - s))
