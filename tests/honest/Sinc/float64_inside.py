# A correct Sinc that computes its derivative in float64 whatever x's dtype (series below |x| = 1e-2, limit 0 at 0)
# and returns it in x's dtype.
CAUSE_Sinc = "zero-over-zero"


class Sinc(BrokenSinc):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        x64 = x.double()
        near = x64.abs() < 1e-2
        far = torch.where(near, torch.ones_like(x64), x64)
        slope = torch.where(near, -x64 / 3 + x64 ** 3 / 30, (far * far.cos() - far.sin()) / far ** 2)
        return grad_output * slope.to(x.dtype)
