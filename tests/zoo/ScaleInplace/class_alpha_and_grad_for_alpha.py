# mistake: keeps alpha on the class, and returns a gradient for the float alpha (two mistakes: the second makes every backward through autograd fail)
# feedback: keep alpha on ctx
# code: grad-for-alpha|alpha-shared-state
# rule: values chain
# fails: values chain
# score: 1/3
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
        return grad_output * ScaleInplace.alpha, grad_output.sum()
