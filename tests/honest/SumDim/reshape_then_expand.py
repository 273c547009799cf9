# style: the summed dimension put back with reshape (not unsqueeze), a normalised dim kept on ctx
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape = x.shape
        ctx.dim = dim % x.dim()
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        kept = list(ctx.shape)
        kept[ctx.dim] = 1
        return grad_output.reshape(kept).expand(ctx.shape), None, None
