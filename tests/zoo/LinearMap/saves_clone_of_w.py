# mistake: forward saves x and a clone of w (the weight as it was): a second w per call, and the old values after a step
# feedback: forward kept copies of its inputs
# code: keeps-copies
# fails: inplace
# score: 2/4
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w.detach().clone())     # the weight as it was for this forward
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w, grad_output.T @ x
