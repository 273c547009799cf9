# mistake: saves x.data and the output, so an in-place change of x after forward goes unnoticed
# feedback: version counter does not follow
# code: unguarded-input
# fails: freed
# score: 2/4
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x.data, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * -2 * x * out
