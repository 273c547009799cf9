# mistake: the cycle broken by keeping a clone of the output as a ctx attribute: right gradients, but one more output-sized tensor per call
# feedback: but copies
# code: keeps-a-copy
# score: 2/4
# fails: freed
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x)
        ctx.out = out.clone()
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * -2 * x * ctx.out
