# mistake: forward saves the output and returns a clone of it: the node keeps a copy
# feedback: copies
# code: keeps-a-copy
# fails: freed
# score: 2/4
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x, out)
        return out.clone()                          # the caller gets its own copy: no cycle with ctx

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * -2 * x * out
