# mistake: scales grad_output in place for y, so x's gradient (the same tensor) is scaled too
# feedback: in place
# code: inplace-grad-output
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
            grad_x = grad_output
        if ctx.needs_input_grad[1]:
            grad_y = grad_output.mul_(ctx.alpha)
        return grad_x, grad_y, None
