# mistake: always returns all three gradients: ignores ctx.needs_input_grad, and returns a bias gradient also when bias is None (two mistakes)
# feedback: return None for a missing bias
# code: grad-for-none-bias
# rule: derivative needs_input_grad
# fails: values gradcheck needs_input_grad
# family: ignores-needs-input-grad
# score: 0/3
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
        return grad_output @ weight, grad_output.T @ x, grad_output.sum(0)
