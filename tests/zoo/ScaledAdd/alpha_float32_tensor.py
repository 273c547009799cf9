# mistake: stores alpha as torch.tensor(alpha), a float32 tensor, so the gradient of y is rounded
# feedback: float32
# code: alpha-rounded
# rule: alpha
# fails: alpha
# score: 4/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = torch.tensor(alpha)
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output
        if ctx.needs_input_grad[1]:
            grad_y = ctx.alpha * grad_output
        return grad_x, grad_y, None
