# mistake: returns a list instead of a tuple (autograd counts a list as one gradient)
# feedback: tuple
# code: returns-a-list
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
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = grad_output
        if ctx.needs_input_grad[1]:
            grads[1] = ctx.alpha * grad_output
        return grads
