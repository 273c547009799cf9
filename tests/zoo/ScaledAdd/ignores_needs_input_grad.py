# mistake: backward always computes and returns both gradients, ignoring ctx.needs_input_grad
# feedback: needs_input_grad
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
        return grad_output, ctx.alpha * grad_output, None
