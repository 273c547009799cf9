# mistake: accumulates along dim in place (x.cumsum_(dim)) and takes the last slice: the caller's x holds running sums
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values gradcheck
# score: 2/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape = x.shape
        ctx.dim = dim
        ctx.keepdim = keepdim
        last = x.cumsum_(dim).narrow(dim, x.shape[dim] - 1, 1)
        return last.clone() if keepdim else last.squeeze(dim).clone()

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output.expand(ctx.shape), None, None
