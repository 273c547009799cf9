# style: alpha kept on ctx as a tensor of x's dtype (no rounding), conditional expressions for needs_input_grad
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = torch.tensor(alpha, dtype=x.dtype)
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        gx = grad_output if ctx.needs_input_grad[0] else None
        gy = grad_output * ctx.alpha if ctx.needs_input_grad[1] else None
        return gx, gy, None
