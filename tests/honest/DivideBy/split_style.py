# A correct DivideBy in split style: t kept as a plain attribute in setup_context, needs_input_grad read in backward.
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(x, t):
        return x / t

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, t = inputs
        ctx.save_for_backward(x)
        ctx.t = t

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        needs_x, needs_t = ctx.needs_input_grad
        return (grad_output / ctx.t if needs_x else None,
                (-(grad_output * x) / ctx.t ** 2).sum() if needs_t else None)
