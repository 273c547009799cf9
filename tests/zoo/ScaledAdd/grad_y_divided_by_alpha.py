# mistake: grad_y = grad_output / alpha
# feedback: the gradient of y is wrong
# code: wrong-grad-y
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
        gx = grad_output if ctx.needs_input_grad[0] else None
        gy = grad_output / ctx.alpha if ctx.needs_input_grad[1] else None
        return gx, gy, None
