# mistake: backward returns a gradient for the float alpha (grad_output times x would be its derivative)
# feedback: return None for alpha
# code: grad-for-alpha
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
        return grad_output * ctx.alpha, grad_output.sum()
