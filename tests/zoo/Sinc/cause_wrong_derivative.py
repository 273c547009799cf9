# mistake: the fix is right, but the cause named is a wrong derivative formula (the formula is right away from 0)
# feedback: is not what breaks the broken Sinc
# code: wrong-cause
# score: 3/4
# fails: cause
CAUSE_Sinc = "wrong-derivative"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        slope = torch.where(x.abs() < 1e-3, -x / 3, (x * torch.cos(x) - torch.sin(x)) / x ** 2)
        return grad_output * slope
