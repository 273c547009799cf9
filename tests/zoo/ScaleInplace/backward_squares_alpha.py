# mistake: keeps alpha on ctx and multiplies by it twice in backward (grad_output * alpha * alpha)
# feedback: the scaling's derivative is alpha
# code: wrong-derivative
# rule: values
# fails: values
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x.mul_(alpha)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output * ctx.alpha
        return g * ctx.alpha, None
