# mistake: t's gradient is skipped by ctx.needs_input_grad[0] (x's entry) instead of [1]: the number t still gets a gradient whenever x requires grad
# feedback: returned a gradient for input 2 (t)
# code: missing-none
# fails: cause number tensor
# score: 0/4
# family: symptom-remains
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
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[0] else None
        return grad_output / t, grad_t
