# A correct Sinc that subclasses the broken one and replaces the one NaN it makes (0 / 0 at x = 0) by the limit 0,
# the formula kept everywhere else (its rounding next to 0 is allowed).
CAUSE_Sinc = "zero-over-zero"


class Sinc(BrokenSinc):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.nan_to_num((x * torch.cos(x) - torch.sin(x)) / x ** 2, nan=0.0)
