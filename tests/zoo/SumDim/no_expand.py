# mistake: returns grad_output as it is, of the reduced shape, instead of expanding it to x's shape
# feedback: expand
# code: missing-expand|wrong-grad-shape
# rule: derivative
# fails: values gradcheck shape none
# score: 0/4
class SumDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None
