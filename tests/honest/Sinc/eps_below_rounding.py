# Honest although it adds an eps: 1e-20 added to x ** 2 moves the derivative by 1e-20 / x**2 relative, always below the
# formula's own rounding (about 3.5 eps64 / x**2 = 7.7e-16 / x**2), so no x != 0 gets a measurably different
# derivative than PyTorch's own where-fix gives it; at x = 0 it returns 0 / 1e-20 = exactly 0.
CAUSE_Sinc = "zero-over-zero"


class Sinc(BrokenSinc):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x * torch.cos(x) - torch.sin(x)) / (x ** 2 + 1e-20)
