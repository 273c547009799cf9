# mistake: |x| clamped up to 1e-6 in backward (the sign kept, exactly 0 selected apart): no NaN, but every smaller |x| gets the derivative at 1e-6
# feedback: Nothing is added to x and nothing is clamped
# code: inexact-near-zero
# score: 3/4
# fails: away
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.where(x < 0, x.clamp(max=-1e-6), x.clamp(min=1e-6))
        slope = torch.where(s.abs() < 1e-2, -s / 3 + s ** 3 / 30, (s * torch.cos(s) - torch.sin(s)) / s ** 2)
        return grad_output * torch.where(x == 0, 0.0, slope)
