# mistake: backward copies forward's guard, value included: the gradient at 0 becomes 1 instead of the limit 0
# feedback: the derivative of sinc there is exactly 0
# code: nonzero-at-zero
# score: 2/4
# fails: zero
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        slope = torch.where(x.abs() < 1e-2, -x / 3 + x ** 3 / 30, (x * torch.cos(x) - torch.sin(x)) / x ** 2)
        return grad_output * torch.where(x == 0, 1.0, slope)
