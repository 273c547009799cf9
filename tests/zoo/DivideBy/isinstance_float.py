# mistake: backward returns None only when t is a float: an int temperature still gets a gradient it cannot have
# feedback: t a Python int
# code: missing-none
# score: 2/4
# fails: number
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x)
        ctx.t = t
        return x / t

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        t = ctx.t
        grad_t = None if isinstance(t, float) else -(grad_output * x).sum() / t ** 2
        return grad_output / t, grad_t
