# mistake: the broken Function handed in as it was, with the right cause named: NaN where x is 0
# feedback: where x is exactly 0
# code: nan-at-zero
# score: 0/4
# fails: cause zero away
# family: symptom-remains|inexact-near-zero
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x * torch.cos(x) - torch.sin(x)) / x ** 2
