# mistake: replaces the slope by its Taylor term -x / 3 for |x| < 0.1, a threshold far too wide: off by 0.3 % at x = 0.1
# feedback: off by a relative
# code: inexact-near-zero
# fails: away
# score: 3/4
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        small = x.abs() < 0.1
        safe = torch.where(small, torch.ones_like(x), x)
        slope = (safe * torch.cos(safe) - torch.sin(safe)) / safe ** 2
        return grad_output * torch.where(small, -x / 3, slope)
