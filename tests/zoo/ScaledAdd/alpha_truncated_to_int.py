# mistake: keeps int(alpha), so a fractional alpha scales y's gradient by its integer part
# feedback: alpha
# code: wrong-grad-y
# rule: derivative
# fails: values
# score: 3/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = int(alpha)
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output
        if ctx.needs_input_grad[1]:
            grad_y = ctx.alpha * grad_output
        return grad_x, grad_y, None
