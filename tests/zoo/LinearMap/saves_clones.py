# mistake: clones saved: a change after forward no longer reaches backward (the old values are used), at the price of a second x and w per call
# feedback: forward kept copies of its inputs
# code: keeps-copies
# score: 2/4
# fails: inplace
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x.clone(), w.clone())
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w, grad_output.T @ x
