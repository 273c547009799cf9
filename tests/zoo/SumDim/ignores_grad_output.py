# mistake: returns ones of x's shape (the local derivative) without using grad_output
# feedback: grad_output
# code: wrong-derivative
# rule: derivative
# fails: values gradcheck
# score: 2/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.save_for_backward(x)
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return torch.ones_like(x), None, None
