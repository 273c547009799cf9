# mistake: keeps alpha on the class, so a second call overwrites it before the first call's backward
# feedback: keep alpha on ctx
# code: alpha-shared-state
# rule: chain
# fails: chain
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    alpha = 1.0

    @staticmethod
    def forward(ctx, x, alpha):
        ScaleInplace.alpha = alpha
        x.mul_(alpha)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ScaleInplace.alpha, None
