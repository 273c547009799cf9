# the gradient of t from the saved output: d(x / t)/dt = -(x / t) / t
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        out = x / t
        ctx.save_for_backward(out)
        ctx.t = t
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        t = ctx.t
        grad_t = -(grad_output * out).sum() / t if ctx.needs_input_grad[1] else None
        return grad_output / t, grad_t
