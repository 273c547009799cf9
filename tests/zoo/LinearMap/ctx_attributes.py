# mistake: x and w kept as ctx attributes instead of .data saved: still nothing the version counter checks
# feedback: the version counter never saw the tensors backward read
# code: not-saved-for-backward
# score: 0/4
# fails: cause inplace values
# family: symptom-remains
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.x, ctx.w = x, w
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output @ ctx.w, grad_output.T @ ctx.x
