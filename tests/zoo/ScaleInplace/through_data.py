# mistake: scales x.data (hidden from the version counter) and does not mark x dirty
# feedback: ctx.mark_dirty(x)
# code: no-mark-dirty
# rule: version
# fails: version
# family: version-counter-missed
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x.data.mul_(alpha)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
