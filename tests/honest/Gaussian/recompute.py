# A correct Gaussian that saves only x and recomputes exp(-x ** 2) in backward: nothing refers to the output.
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.exp(-x.square())

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return -2 * x * torch.exp(-x.square()) * grad_output
