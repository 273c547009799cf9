# style: grad_output.view(the shape with the summed dim set to 1), then expand (a size-1 dim can always be viewed in)
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        kept = list(ctx.shape)
        kept[ctx.dim] = 1
        return grad_output.view(kept).expand(ctx.shape), None, None
