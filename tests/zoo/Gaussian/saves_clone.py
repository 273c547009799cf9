# mistake: a clone of the output saved with save_for_backward: no cycle, guarded, but a second copy of the output for each call
# feedback: but copies
# code: keeps-a-copy
# score: 2/4
# fails: freed
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x, out.clone())
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * -2 * x * out
