# mistake: divides the gradient by the size of the summed dimension, as for a mean
# feedback: the gradient of the sum it went into
# code: wrong-derivative
# rule: derivative
# fails: values gradcheck
# score: 2/4
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
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output.expand(ctx.shape) / ctx.shape[ctx.dim], None, None
