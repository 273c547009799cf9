# mistake: the where-fix is right, with the derivative (cos x - sinc x) / x from the output kept as a ctx attribute: an in-place change of the output goes unnoticed
# feedback: changing the output in place after forward went unnoticed
# code: not-saved-for-backward
# fails: away
# score: 3/4
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.where(x == 0, 1.0, torch.sin(x) / x)
        ctx.save_for_backward(x)
        ctx.y = y                                   # d sinc = (cos x - sinc x) / x: reuse the output
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        slope = (torch.cos(x) - ctx.y) / x
        return grad_output * torch.where(x == 0, 0.0, slope)
