# mistake: forward saves x * x besides x and the output: a copy per call
# feedback: copies
# code: keeps-a-copy
# fails: freed
# score: 2/4
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        sq = x * x
        out = torch.exp(-sq)
        ctx.save_for_backward(x, sq, out)           # keep what forward computed anyway
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, sq, out = ctx.saved_tensors
        return grad_output * -2 * x * out
