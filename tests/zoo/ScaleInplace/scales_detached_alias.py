# mistake: scales an alias of x (x.detach(), which shares its memory) in place, marks x dirty but returns the alias
# feedback: Return x itself
# code: dirty-not-returned
# rule: version
# fails: version
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        out = x.detach()
        out.mul_(alpha)
        ctx.mark_dirty(x)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
