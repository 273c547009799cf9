# mistake: the where guards the numerator only: (0 where x == 0) / x ** 2 is still 0 / 0 = NaN at 0, the report's symptom, so nothing is earned
# feedback: where x is exactly 0
# code: nan-at-zero
# family: symptom-remains|inexact-near-zero
# score: 0/4
# fails: cause zero away
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.where(x == 0, 0.0, x * torch.cos(x) - torch.sin(x)) / x ** 2
