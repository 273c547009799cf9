# mistake: keeps alpha on the class instead of ctx, so a later call overwrites it before backward
# feedback: not on the class
# code: alpha-shared-state
# rule: alpha
# fails: alpha
# score: 4/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ScaledAdd.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output
        if ctx.needs_input_grad[1]:
            grad_y = ScaledAdd.alpha * grad_output
        return grad_x, grad_y, None
