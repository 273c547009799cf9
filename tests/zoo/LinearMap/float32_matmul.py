# mistake: forward multiplies in float32 and casts back (the fast matmul)
# feedback: float32's rounding
# code: float32-precision
# fails: values
# score: 3/4
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return (x.float() @ w.float().T).to(x.dtype)        # the fast matmul

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w, grad_output.T @ x
