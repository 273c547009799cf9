# mistake: passes the float alpha to ctx.save_for_backward, which takes tensors only (and returns both gradients whatever ctx.needs_input_grad says)
# feedback: save_for_backward only takes tensors
# code: saved-a-float|ignores-needs-input-grad
# rule: alpha needs_input_grad
# fails: needs_input_grad alpha
# score: 3/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.save_for_backward(alpha)
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        (alpha,) = ctx.saved_tensors
        return grad_output, alpha * grad_output, None
