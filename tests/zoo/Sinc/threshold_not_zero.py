# mistake: backward selects 0 wherever |x| < 1e-6 (the formula is noisy there), not only where x is exactly 0
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
        slope = (x * torch.cos(x) - torch.sin(x)) / x ** 2
        return grad_output * torch.where(x.abs() < 1e-6, 0.0, slope)     # the formula is noise that close to 0
