# mistake: the cycle broken by keeping out.detach() as a ctx attribute: freed, but an in-place change of the output after forward is read silently (no version check)
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
        ctx.out = out.detach()
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * -2 * x * ctx.out
