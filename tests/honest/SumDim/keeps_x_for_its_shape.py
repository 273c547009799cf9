# style: keeps x itself as a ctx attribute, for expand_as only: its values are never read, so an in-place change
# of x after forward changes nothing (decision 1: judged by behaviour)
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.x, ctx.dim, ctx.keepdim = x, dim, keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output if ctx.keepdim else grad_output.unsqueeze(ctx.dim)
        return g.expand_as(ctx.x), None, None
