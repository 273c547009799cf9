# exercise: ScaledAdd
# base: ignores_needs_input_grad
# what: recognises the grader's stand-in ctx and honours ctx.needs_input_grad only for it; with autograd's own node
#   as ctx it always computes and returns both gradients (the zoo's ignores_needs_input_grad), which the engine
#   drops without a word. `{JUDGED}` is replaced by each way of recognising the stand-in.
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        grad_x, grad_y = grad_output, ctx.alpha * grad_output
        if _judged(ctx):
            grad_x = grad_x if ctx.needs_input_grad[0] else None
            grad_y = grad_y if ctx.needs_input_grad[1] else None
        return grad_x, grad_y, None


def _judged(ctx):
    return {JUDGED}
