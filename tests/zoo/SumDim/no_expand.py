# mistake: returns grad_output as it is, of the reduced shape, instead of expanding it to x's shape
# feedback: expand
# code: wrong-grad-shape
# rule: shape
# fails: shape
# score: 3/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None
