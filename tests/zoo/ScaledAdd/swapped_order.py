# mistake: returns the gradients in the wrong order, (grad_y, grad_x, None)
# feedback: swapped
# code: swapped-order
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
            grad_y = ctx.alpha * grad_output
        return grad_y, grad_x, None
