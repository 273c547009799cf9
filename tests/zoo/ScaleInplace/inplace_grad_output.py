# mistake: scales grad_output in place in backward (grad_output.mul_(alpha)) instead of building a new tensor
# feedback: in place
# code: inplace-grad-output
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
        return grad_output.mul_(ctx.alpha), None
