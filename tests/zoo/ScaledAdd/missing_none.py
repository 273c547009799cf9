# mistake: backward returns only two values, forgetting the None for the float alpha
# feedback: return None for the float alpha
# code: wrong-arity
# rule: derivative
# fails: values none_for_alpha needs_input_grad alpha
# score: 0/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.alpha = alpha
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, ctx.alpha * grad_output
