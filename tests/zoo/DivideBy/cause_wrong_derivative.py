# mistake: the fix is right, but the cause named is a wrong derivative (the gradient is right whenever t is a tensor)
# feedback: is not what breaks the broken DivideBy
# code: wrong-cause
# score: 3/4
# fails: cause
CAUSE_DivideBy = "wrong-derivative"


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
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[1] else None
        return grad_output / t, grad_t
