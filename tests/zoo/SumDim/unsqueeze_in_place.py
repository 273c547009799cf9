# mistake: puts the summed dimension back with grad_output.unsqueeze_(dim): a change of autograd's grad_output in place
# feedback: wrote into grad_output
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
