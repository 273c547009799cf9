# style: builds the derivative with in-place ops on its own recomputed sigmoid
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        d = (1 - s).mul_(x).add_(1).mul_(s)
        return grad_output * d
