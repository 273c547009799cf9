# mistake: the fix is right, but the cause named is saving too much (nothing is saved twice; the output is kept in a cycle)
# feedback: is not what breaks the broken Gaussian
# code: wrong-cause
# score: 3/4
# fails: cause
CAUSE_Gaussian = "saves-too-much"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * -2 * x * out
