# mistake: the output is saved, x kept as a ctx attribute: an in-place change of x goes unnoticed
# feedback: x was changed in place after forward
# code: unguarded-input
# fails: freed
# score: 2/4
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(out)
        ctx.x = x                                   # x is the caller's: no cycle through it
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * -2 * ctx.x * out
