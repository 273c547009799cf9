# mistake: the save is fixed, but w's gradient is divided by the batch size, as if the loss were a mean
# feedback: the transpose of grad_output times x
# code: wrong-derivative
# score: 3/4
# fails: values
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output @ w, grad_output.T @ x / x.shape[0]
