# style: saves x, returns torch.square, the derivative x + x from a helper, an assert on the dtype
def _twice(t):
    return t + t


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        assert x.is_floating_point()
        ctx.save_for_backward(x)
        return torch.square(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return torch.mul(grad_output, _twice(x))
