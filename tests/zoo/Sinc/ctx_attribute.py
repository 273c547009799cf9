# mistake: the where-fix is right, but x is kept as a ctx attribute instead of saved: an in-place change after forward goes unnoticed
# feedback: changing x in place after forward went unnoticed
# code: not-saved-for-backward
# fails: away
# score: 3/4
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.x
        slope = (x * torch.cos(x) - torch.sin(x)) / x ** 2
        return grad_output * torch.where(x == 0, 0.0, slope)
