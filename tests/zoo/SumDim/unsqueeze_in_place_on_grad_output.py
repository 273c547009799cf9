# mistake: grad_output.unsqueeze_(dim) changes grad_output's shape in place
# feedback: changed grad_output in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 3/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output.unsqueeze_(ctx.dim)
        return grad_output.expand(ctx.shape), None, None
