# mistake: the broken Function handed in as it was, with the right cause named: .data saved, the change unnoticed
# feedback: computed from the changed values, without an error
# code: not-saved-for-backward
# score: 0/4
# fails: cause inplace values
# family: symptom-remains
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
