# style: the split spelling (forward(x) + setup_context), torch.special.expit for the sigmoid, a derivative helper
def _silu_derivative(x):
    s = torch.special.expit(x)
    return s * (1 + x * (1 - s))


class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * torch.special.expit(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * _silu_derivative(x)
