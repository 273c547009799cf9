# mistake: adds alpha * y into x in place (x.add_(y, alpha=alpha)) and returns x: the caller's x becomes the result
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 3/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x.add_(y, alpha=alpha)

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output
        if ctx.needs_input_grad[1]:
            grad_y = ctx.alpha * grad_output
        return grad_x, grad_y, None
