# mistake: the broken Function handed in as it was, with the right cause named: a gradient for a Python-number t
# feedback: backward returned a gradient for input 2 (t)
# code: missing-none
# score: 0/4
# fails: cause number tensor
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
        return grad_output / t, -(grad_output * x).sum() / t ** 2
