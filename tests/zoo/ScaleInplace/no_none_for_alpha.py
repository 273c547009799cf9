# mistake: backward returns only the gradient of x, without the None for alpha
# feedback: one value per forward input
# code: wrong-arity
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
        return grad_output * ctx.alpha
