# mistake: sums the gradient of y to a single number (as if alpha were the input), so it no longer has y's shape (and returns both gradients whatever ctx.needs_input_grad says)
# feedback: input 2 (y)
# code: wrong-grad-shape|ignores-needs-input-grad
# rule: derivative needs_input_grad
# fails: values needs_input_grad
# score: 2/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, (ctx.alpha * grad_output).sum(), None
