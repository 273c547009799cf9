# mistake: the save is fixed, but w's gradient is x.T @ grad_output, the transpose of the right one
# feedback: transpose of grad_output times x
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
        return grad_output @ w, (x.T @ grad_output).reshape(w.shape)
