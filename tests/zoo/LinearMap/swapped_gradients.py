# mistake: backward returns w's gradient first and x's second
# feedback: the gradient for input 1 (x) has shape
# code: wrong-grad-shape
# fails: values
# score: 3/4
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output.T @ x, grad_output @ w
