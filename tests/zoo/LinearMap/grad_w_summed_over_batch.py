# mistake: w's gradient is the outer product of the batch sums of grad_output and x, not the sum of the per-sample outer products
# feedback: the gradient of w
# code: wrong-derivative
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
        grad_w = grad_output.sum(0, keepdim=True).T * x.sum(0, keepdim=True)   # outer product of the batch sums
        return grad_output @ w, grad_w
