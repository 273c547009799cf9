# A correct DivideBy that subclasses the broken one and returns a gradient for t exactly when t is a tensor (autograd
# ignores one for a tensor that does not require grad), skipping x's when it is not needed.
CAUSE_DivideBy = "missing-none"


class DivideBy(BrokenDivideBy):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        t = ctx.t
        grad_x = grad_output / t if ctx.needs_input_grad[0] else None
        grad_t = -(grad_output * x).sum() / t ** 2 if isinstance(t, torch.Tensor) else None
        return grad_x, grad_t
