# mistake: scales y in place (y *= alpha) before adding: the caller's y is multiplied by alpha
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 3/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        y *= alpha
        return x + y

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output
        if ctx.needs_input_grad[1]:
            grad_y = ctx.alpha * grad_output
        return grad_x, grad_y, None
