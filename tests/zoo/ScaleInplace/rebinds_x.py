# mistake: writes x = x * alpha (a new tensor bound to the name x), marks it dirty and returns it: the caller's x is unchanged
# feedback: left x unchanged
# code: returns-new-tensor
# rule: version
# fails: version
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x = x * alpha
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
