# mistake: marks x dirty but returns a copy of it instead of x itself
# feedback: return x itself
# code: dirty-not-returned
# rule: version
# fails: version
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x.mul_(alpha)
        ctx.mark_dirty(x)
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
