# mistake: sums the gradient of y to a single number (as if alpha were the input), so it no longer has y's shape
# feedback: input 2 (y)
# code: wrong-grad-shape
# rule: derivative
# fails: values none_for_alpha needs_input_grad alpha
# family: ignores-needs-input-grad
# score: 0/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, (ctx.alpha * grad_output).sum(), None
