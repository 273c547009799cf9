# mistake: turns a negative dim into a positive one with grad_output's number of dims, not x's
# feedback: could not expand grad_output
# code: missing-unsqueeze
# rule: derivative
# fails: values
# score: 3/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output
        if not ctx.keepdim:
            d = ctx.dim if ctx.dim >= 0 else ctx.dim + g.dim()
            g = g.unsqueeze(d)
        return g.expand(ctx.shape), None, None
