# A correct Sinc that subclasses the broken one, replaces the one NaN it makes (0 / 0 at x = 0) by the limit 0, and
# takes the first terms of the Taylor series where the formula's two terms cancel (|x| below 1e-3).
CAUSE_Sinc = "zero-over-zero"


class Sinc(BrokenSinc):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        slope = torch.nan_to_num((x * torch.cos(x) - torch.sin(x)) / x ** 2, nan=0.0)
        return grad_output * torch.where(x.abs() < 1e-3, -x / 3, slope)
