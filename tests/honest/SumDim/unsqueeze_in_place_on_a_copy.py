# style: puts the summed dimension back with unsqueeze_ on a copy of grad_output: the copy is backward's own to change.
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        grad = grad_output.clone()
        if not ctx.keepdim:
            grad.unsqueeze_(ctx.dim)
        return grad.expand(ctx.shape), None, None
