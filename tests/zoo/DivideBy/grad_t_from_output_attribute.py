# mistake: the None is fixed; t's gradient from the output, -(g * out).sum() / t, with the output kept as a ctx attribute
# feedback: changing the output in place after forward went unnoticed
# code: not-saved-for-backward
# fails: tensor
# score: 3/4
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        out = x / t
        ctx.t, ctx.out = t, out                 # d(x / t)/dt = -out / t
        return out

    @staticmethod
    def backward(ctx, grad_output):
        t, out = ctx.t, ctx.out
        grad_t = -(grad_output * out).sum() / t if ctx.needs_input_grad[1] else None
        return grad_output / t, grad_t
