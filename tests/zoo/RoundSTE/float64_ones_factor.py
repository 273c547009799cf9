# mistake: multiplies grad_output by ones_like(grad_output, dtype=torch.float64): a float32 x gets a float64 gradient
# feedback: dtype
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.ones_like(grad_output, dtype=torch.float64)
