# mistake: the cycle is gone, but backward returns the derivative without multiplying by grad_output
# feedback: times grad_output
# code: wrong-derivative
# fails: values
# score: 3/4
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return -2 * x * out
