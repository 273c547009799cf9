# mistake: the gradient of bias is grad_output itself, not summed over the batch (the engine would quietly sum it)
# feedback: sum it over the batch
# code: bias-grad-not-summed
# rule: needs_input_grad
# fails: needs_input_grad
# score: 2/3
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
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
        if ctx.needs_input_grad[2]:
            grad_bias = grad_output
        return grad_x, grad_weight, grad_bias
