# mistake: unsqueezes when keepdim is True and not when it is False (the test inverted)
# feedback: keepdim
# code: missing-unsqueeze
# rule: derivative
# fails: values
# score: 3/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape = x.shape
        ctx.dim = dim
        ctx.keepdim = keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.keepdim:
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output.expand(ctx.shape), None, None
