# mistake: decides whether to compute the bias gradient from a flag kept on ctx (bias is not None), not from ctx.needs_input_grad[2]
# feedback: needs_input_grad
# code: ignores-needs-input-grad
# rule: needs_input_grad
# fails: needs_input_grad
# score: 2/3
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        out = x @ weight.T
        if bias is not None:
            out = out + bias
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output @ weight
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.T @ x
        if ctx.has_bias:
            grad_bias = grad_output.sum(0)
        return grad_x, grad_weight, grad_bias
