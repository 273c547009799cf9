# mistake: backward evaluates the formula in float32 and casts back: next to 0 the cancellation costs far more than float64's rounding
# feedback: where rounding alone explains
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
        xf = x.float()
        slope = ((xf * torch.cos(xf) - torch.sin(xf)) / xf ** 2).to(x.dtype)
        return grad_output * torch.where(x == 0, 0.0, slope)
