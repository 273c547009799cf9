# mistake: forward takes the norm of the whole tensor (x.norm() without dim=-1)
# feedback: last dimension
# code: wrong-dim
# rule: derivative
# fails: values
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm()
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        safe = norm if norm > 0 else torch.ones_like(norm)
        return grad_output * x / safe
