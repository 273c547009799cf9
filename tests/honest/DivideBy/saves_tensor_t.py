# t saved with save_for_backward when it is a tensor, kept as a plain number otherwise
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        if isinstance(t, torch.Tensor):
            ctx.save_for_backward(x, t)
        else:
            ctx.save_for_backward(x)
            ctx.number = t
        return x / t

    @staticmethod
    def backward(ctx, grad_output):
        saved = ctx.saved_tensors
        x, t = saved if len(saved) == 2 else (saved[0], ctx.number)
        grad_x = grad_output / t if ctx.needs_input_grad[0] else None
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[1] else None
        return grad_x, grad_t
