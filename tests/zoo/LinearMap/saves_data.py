# mistake: saves x.data and w.data (no version counter of their own), so an in-place change after forward goes unnoticed
# feedback: version counter
# code: not-saved-for-backward|symptom-remains
# fails: cause inplace values
# score: 0/4
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x.data, w.data)
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w, grad_output.T @ x
