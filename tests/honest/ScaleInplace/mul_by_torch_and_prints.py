# style: torch.mul with out=, alpha saved as a 0-d tensor's item, debugging prints, a backward helper
def _scaled(grad, alpha):
    return alpha * grad


class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        print("scaling in place by", alpha)
        torch.mul(x, alpha, out=x)
        ctx.mark_dirty(x)
        ctx.alpha = float(alpha)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return _scaled(grad_output, ctx.alpha), None
