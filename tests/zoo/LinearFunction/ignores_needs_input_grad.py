# mistake: computes every gradient whatever ctx.needs_input_grad says (and only then checks for a None bias)
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
        grad_bias = grad_output.sum(0) if ctx.has_bias else None
        return grad_output @ weight, grad_output.T @ x, grad_bias
