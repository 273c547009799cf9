# style: torch.sum with keywords, the shape as ctx.x_shape, and the expand done by adding a zeros tensor of x's shape
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.x_shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return torch.sum(x, dim=dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output if ctx.keepdim else grad_output.unsqueeze(ctx.dim)
        return g + torch.zeros(ctx.x_shape, dtype=g.dtype), None, None
