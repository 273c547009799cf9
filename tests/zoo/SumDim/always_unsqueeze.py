# mistake: unsqueezes grad_output even when keepdim=True, where the summed dimension is already there
# feedback: keepdim
# code: unsqueeze-with-keepdim
# rule: derivative
# fails: values
# score: 3/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape = x.shape
        ctx.dim = dim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.unsqueeze(ctx.dim).expand(ctx.shape), None, None
