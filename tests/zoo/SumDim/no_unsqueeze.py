# mistake: ignores keepdim=False: expands grad_output without putting the summed dimension back (unsqueeze)
# feedback: unsqueeze
# code: missing-unsqueeze
# rule: derivative
# fails: values
# score: 3/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape = x.shape
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.expand(ctx.shape), None, None
