# t kept as a plain float (float(t) of a tensor t too): a number of the Function's own; its gradient is still
# returned whenever ctx.needs_input_grad asks for it
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x)
        ctx.t = float(t)                        # a plain number either way
        return x / ctx.t

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        t = ctx.t
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[1] else None
        return grad_output / t, grad_t
