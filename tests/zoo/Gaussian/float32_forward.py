# mistake: forward computes exp in float32 and casts back to x's dtype
# feedback: float32's rounding
# code: float32-precision
# fails: values
# score: 3/4
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.exp(-(x * x).float()).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * -2 * x * torch.exp(-x * x)
