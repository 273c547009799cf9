# mistake: x is saved with save_for_backward, w kept as a ctx attribute (a parameter that lives anyway): a step of w still goes unnoticed
# feedback: the version counter never saw the tensors backward read
# code: not-saved-for-backward
# fails: cause inplace values
# score: 0/4
# family: symptom-remains
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x)
        ctx.w = w                                 # a parameter: it lives anyway
        return x @ w.T

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output @ ctx.w, grad_output.T @ x
