# style: the Taylor series -x/3 + x**3/30 below |x| < 1e-3 (exact to rounding there), the formula elsewhere
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        small = x.abs() < 1e-3
        safe = torch.where(small, torch.ones_like(x), x)
        slope = (safe * torch.cos(safe) - torch.sin(safe)) / safe ** 2
        return grad_output * torch.where(small, -x / 3 + x ** 3 / 30, slope)
