# mistake: puts the summed dimension back at the end (unsqueeze(-1)) whatever dim was
# feedback: unsqueeze
# code: missing-unsqueeze
# rule: derivative
# fails: values gradcheck
# score: 2/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape = x.shape
        ctx.keepdim = keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output = grad_output.unsqueeze(-1)
        return grad_output.expand(ctx.shape), None, None
