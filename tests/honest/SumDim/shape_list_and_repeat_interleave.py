# style: rebuilds the summed dimension with a shape list and repeat_interleave (a copy, not an expand)
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.in_shape = tuple(x.shape)
        ctx.dim = dim % x.dim()
        return torch.sum(x, dim, keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        kept = list(ctx.in_shape)
        kept[ctx.dim] = 1
        g = grad_output.reshape(kept)
        return g.repeat_interleave(ctx.in_shape[ctx.dim], dim=ctx.dim), None, None
