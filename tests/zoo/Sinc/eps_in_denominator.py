# mistake: backward divides by x ** 2 + 1e-8: no NaN at 0, and close for most inputs, but the gradient is 1 % off at |x| = 1e-3 and 50 % off at 1e-4
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
        return grad_output * (x * torch.cos(x) - torch.sin(x)) / (x ** 2 + 1e-8)
