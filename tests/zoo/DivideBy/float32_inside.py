# mistake: the None is fixed, but forward divides in float32 and casts back
# feedback: float32's rounding
# code: float32-precision
# fails: tensor
# score: 3/4
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x)
        ctx.t = t
        return (x.float() / t).to(x.dtype)           # float32 is enough for logits

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        t = ctx.t
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[1] else None
        return grad_output / t, grad_t
