# mistake: checks ctx.needs_input_grad for x and y but returns the number 0.0 for alpha instead of None
# feedback: None for the float alpha
# code: grad-for-float
# rule: none_for_alpha
# fails: none_for_alpha
# score: 4/5
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
        return grad_x, grad_y, 0.0
