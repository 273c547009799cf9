# mistake: returns x * alpha, a new tensor, leaving x unchanged (not in place at all)
# feedback: left x unchanged and returned a new tensor
# code: returns-new-tensor
# rule: version
# fails: version
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x * alpha

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
