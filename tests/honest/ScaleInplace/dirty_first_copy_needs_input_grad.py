# style: marks x dirty before the change, and changes it with x.copy_(x * alpha)
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.mark_dirty(x)
        ctx.alpha = float(alpha)
        x.copy_(x * alpha)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output.mul(ctx.alpha)
        return grad_x, None
