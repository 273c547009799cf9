# style: saves only the output and x, computes the derivative with torch.mul chains and a helper
def _slope(x, out):
    return torch.mul(torch.mul(x, out), -2.0)


CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = (-(x ** 2)).exp()
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return _slope(x, out) * grad_output
