# mistake: NaN at 0 fixed with a where, the formula kept everywhere else: right at 0, but rounding noise for |x| below 1e-6 (x cos x and sin x cancel)
# feedback: catastrophic cancellation
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
        slope = (x * torch.cos(x) - torch.sin(x)) / x ** 2
        return grad_output * torch.where(x == 0, 0.0, slope)
