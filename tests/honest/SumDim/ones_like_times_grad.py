# style: saves x (not needed) and multiplies ones_like(x) by grad_output, torch.sum and torch.unsqueeze
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.save_for_backward(x)
        ctx.dim, ctx.keepdim = dim, keepdim
        return torch.sum(x, dim=dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if not ctx.keepdim:
            grad_output = torch.unsqueeze(grad_output, ctx.dim)
        return torch.ones_like(x) * grad_output, None, None
