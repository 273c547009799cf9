# mistake: checks any(ctx.needs_input_grad) once, then returns both gradients
# feedback: whose ctx.needs_input_grad entry is False
# code: ignores-needs-input-grad
# rule: needs_input_grad
# fails: needs_input_grad
# score: 4/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        if not any(ctx.needs_input_grad):
            return None, None, None
        return grad_output, ctx.alpha * grad_output, None
