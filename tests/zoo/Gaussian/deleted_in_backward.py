# mistake: ctx.out is deleted at the end of backward: freed after a backward, but an output dropped before one still waits for the collector
# feedback: before backward, the caller dropped its last reference
# code: reference-cycle
# score: 2/4
# fails: freed
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x)
        ctx.out = out
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = grad_output * -2 * x * ctx.out
        del ctx.out
        return grad
