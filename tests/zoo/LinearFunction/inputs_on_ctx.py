# mistake: keeps x and weight as plain ctx attributes (ctx.x, ctx.weight) instead of ctx.save_for_backward
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 2/3
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.x, ctx.weight = x, weight
        out = x @ weight.T
        if bias is not None:
            out = out + bias
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.x, ctx.weight
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output @ weight
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.T @ x
        if ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_x, grad_weight, grad_bias
