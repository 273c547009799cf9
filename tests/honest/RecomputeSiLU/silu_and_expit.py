# style: F.silu in forward, the derivative as s * (1 + x * (1 - s)) with torch.special.expit
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.nn.functional.silu(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        s = torch.special.expit(x)
        return grad_output * s * (1 + x * (1 - s))
