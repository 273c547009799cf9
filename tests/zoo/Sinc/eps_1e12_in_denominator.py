# mistake: backward divides by x ** 2 + 1e-12: passes gradcheck and is within 1e-6 for every |x| >= 1e-2, but the gradient is 1 % off at |x| = 1e-5 and 50 % off at 1e-6, far beyond the formula's own rounding there
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
        return grad_output * (x * torch.cos(x) - torch.sin(x)) / (x ** 2 + 1e-12)
