# mistake: the broken Function handed in as it was, with the right cause named: the output kept as ctx.out
# feedback: the output stayed alive
# code: reference-cycle
# score: 0/4
# fails: cause freed values
# family: symptom-remains
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
        return grad_output * -2 * x * ctx.out
