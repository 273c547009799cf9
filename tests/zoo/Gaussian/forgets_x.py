# mistake: the cycle is gone, but backward drops the factor x: -2 * output instead of -2 * x * output
# feedback: -2 x exp(-x**2), times grad_output
# code: wrong-derivative
# score: 3/4
# fails: values
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * -2 * out
