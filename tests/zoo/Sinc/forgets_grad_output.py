# mistake: the 0 / 0 is guarded, but backward returns the slope without multiplying by grad_output
# feedback: d/dx sin(x)/x
# code: inexact-near-zero|wrong-derivative
# fails: away zero
# score: 1/4
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
        return torch.where(x == 0, 0.0, slope)
