# mistake: backward returns None for t whatever t is: evaluation works, and a learned temperature never learns
# feedback: requires grad (a temperature that is learned) but got no gradient
# code: missing-gradient
# score: 3/4
# fails: tensor
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
        return grad_output / ctx.t, None
