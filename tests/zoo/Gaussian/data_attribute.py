# mistake: the cycle broken by keeping out.data as a ctx attribute: freed, but backward silently reads an output changed in place after forward
# feedback: computed from the changed values, without an error
# code: unguarded-output
# score: 2/4
# fails: freed
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x)
        ctx.out = out.data
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * -2 * x * ctx.out
