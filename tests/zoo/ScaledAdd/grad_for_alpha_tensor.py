# mistake: backward returns a gradient (a tensor) for the float alpha (and both gradients whatever ctx.needs_input_grad says)
# feedback: None for the float alpha
# code: grad-for-float|ignores-needs-input-grad
# rule: none_for_alpha needs_input_grad
# fails: none_for_alpha needs_input_grad
# score: 3/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.save_for_backward(y)
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output, ctx.alpha * grad_output, (grad_output * y).sum()
