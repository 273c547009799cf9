# mistake: backward returns grad_output * sigmoid(x), forgetting the x * s * (1 - s) term
# feedback: x * s * (1 - s)
# code: wrong-derivative
# rule: derivative
# fails: values gradcheck
# family: ignores-grad-output
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)
