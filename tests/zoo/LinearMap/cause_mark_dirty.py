# mistake: the fix is right, but the cause named is a missing mark_dirty (nothing is changed in place inside forward)
# feedback: is not what breaks the broken LinearMap
# code: wrong-cause
# score: 3/4
# fails: cause
CAUSE_LinearMap = "missing-mark-dirty"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w, grad_output.T @ x
