# mistake: turns a negative dim into a positive one using grad_output's number of dimensions instead of x's
# feedback: negative dim
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
        if not ctx.keepdim:
            dim = ctx.dim if ctx.dim >= 0 else ctx.dim + grad_output.dim()
            grad_output = grad_output.unsqueeze(dim)
        return grad_output.expand(ctx.shape), None, None
