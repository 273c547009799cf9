# mistake: an eps too small to matter anywhere but next to 0 (x ** 2 + 1e-20), with the series near 0 otherwise skipped: still off where |x| is near 1e-8
# feedback: may be off by 1e-06 at most
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
        small = x.abs() < 1e-5
        slope = torch.where(small, -x / 3, (x * torch.cos(x) - torch.sin(x)) / x ** 2)
        return grad_output * torch.where(small, x * (-1 / 3) * x ** 2 / (x ** 2 + 1e-20), slope)
