# mistake: passes the float alpha to ctx.save_for_backward, which takes tensors only
# feedback: save_for_backward only takes tensors
# code: saved-a-float
# rule: alpha
# fails: values none_for_alpha needs_input_grad alpha
# score: 0/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.save_for_backward(alpha)
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        (alpha,) = ctx.saved_tensors
        return grad_output, alpha * grad_output, None
