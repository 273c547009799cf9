# mistake: scales x in place and returns it, but never calls ctx.mark_dirty, so x keeps its old history
# feedback: ctx.mark_dirty(x)
# code: no-mark-dirty
# rule: version
# fails: version
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x.mul_(alpha)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
