# A correct Gaussian that saves x and a detached alias of the output through save_for_backward: no cycle, and the
# alias shares the output's version counter, so an in-place change of the output is refused in backward.
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x.pow(2))
        ctx.save_for_backward(x.detach(), out.detach())
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return -2.0 * grad_output * x * out
