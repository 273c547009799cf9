# mistake: backward returns the local derivatives (1 and alpha) without multiplying by grad_output
# feedback: ignores grad_output
# code: ignores-grad-output
# rule: derivative
# fails: values
# score: 3/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = torch.ones_like(grad_output)
        if ctx.needs_input_grad[1]:
            grad_y = ctx.alpha * torch.ones_like(grad_output)
        return grad_x, grad_y, None
