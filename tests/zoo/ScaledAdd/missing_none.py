# mistake: backward returns only two values, forgetting the None for the float alpha (and both gradients whatever ctx.needs_input_grad says)
# feedback: return None for the float alpha
# code: wrong-arity|ignores-needs-input-grad
# rule: none_for_alpha needs_input_grad
# fails: none_for_alpha needs_input_grad
# score: 3/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, ctx.alpha * grad_output
