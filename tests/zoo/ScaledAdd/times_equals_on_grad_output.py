# mistake: grad_y = grad_output; grad_y *= alpha: *= writes into grad_output (and grad_x is that same tensor)
# feedback: backward must not change grad_output
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
        if ctx.needs_input_grad[1]:
            grad_y = grad_output
            grad_y *= ctx.alpha
        if ctx.needs_input_grad[0]:
            grad_x = grad_output
        return grad_x, grad_y, None
