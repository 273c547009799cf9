# mistake: checks needs_input_grad[1] for x and [0] for y
# feedback: needs_input_grad
# code: ignores-needs-input-grad
# rule: needs_input_grad
# fails: needs_input_grad
# score: 4/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_y = None
        if ctx.needs_input_grad[1]:
            grad_x = grad_output
        if ctx.needs_input_grad[0]:
            grad_y = ctx.alpha * grad_output
        return grad_x, grad_y, None
