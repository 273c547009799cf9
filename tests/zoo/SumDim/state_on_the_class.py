# mistake: keeps dim, keepdim and the shape on the class (SumDim.dim = dim), so a second call overwrites the first call's
# feedback: on ctx
# code: shared-state
# rule: derivative
# fails: values
# score: 3/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        SumDim.shape, SumDim.dim, SumDim.keepdim = x.shape, dim, keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not SumDim.keepdim:
            grad_output = grad_output.unsqueeze(SumDim.dim)
        return grad_output.expand(SumDim.shape), None, None
