# mistake: scales x.data (hidden from the version counter) and does not mark x dirty
# feedback: ctx.mark_dirty(x)
# code: no-mark-dirty
# rule: values
# fails: values version
# family: version-counter-missed
# score: 1/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x.data.mul_(alpha)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
