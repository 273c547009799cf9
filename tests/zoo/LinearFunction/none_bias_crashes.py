# mistake: uses ctx.needs_input_grad, but crashes on a None bias in forward (bias.unsqueeze on None)
# feedback: crashed on bias = None
# code: none-bias-crashes
# rule: derivative
# fails: values gradcheck
# score: 1/3
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        return x @ weight.T + bias.unsqueeze(0)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output @ weight
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.T @ x
        if ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_x, grad_weight, grad_bias
