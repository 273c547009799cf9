# mistake: returns only the gradient of x, with no None for dim and keepdim
# feedback: 3 inputs
# code: wrong-arity
# rule: nones
# fails: none
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
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output.expand(ctx.shape)
