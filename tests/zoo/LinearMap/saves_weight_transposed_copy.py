# mistake: forward saves w.T.contiguous(), a copy of w laid out for the matmul
# feedback: forward kept copies of its inputs
# code: keeps-copies
# fails: inplace
# score: 2/4
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        wt = w.T.contiguous()                     # (D, M), laid out for the matmul
        ctx.save_for_backward(x, wt)
        return x @ wt

    @staticmethod
    def backward(ctx, grad_output):
        x, wt = ctx.saved_tensors
        return grad_output @ wt.T, grad_output.T @ x
