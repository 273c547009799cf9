# mistake: sigmoid written as (1 + tanh(x)) / 2 (it is (1 + tanh(x / 2)) / 2)
# feedback: wrong
# code: wrong-derivative
# rule: derivative
# fails: gradcheck values
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = (1 + torch.tanh(x)) / 2
        return grad_output * (s + x * s * (1 - s))
