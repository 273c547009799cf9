# mistake: the None is fixed, but x is kept as a ctx attribute instead of saved: an in-place change of x after forward goes unnoticed
# feedback: changing x in place after forward went unnoticed
# code: not-saved-for-backward
# fails: tensor
# score: 3/4
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        ctx.x, ctx.t = x, t
        return x / t

    @staticmethod
    def backward(ctx, grad_output):
        x, t = ctx.x, ctx.t
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[1] else None
        return grad_output / t, grad_t
