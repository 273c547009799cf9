# mistake: backward passes grad_output through unchanged, forgetting the factor alpha
# feedback: return grad_output * alpha
# code: forgets-alpha
# rule: values
# fails: values
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        x.mul_(alpha)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None
