# mistake: the fix is right, but forward saves x.data and w.data, which the version counter does not follow
# feedback: changing x in place after forward went unnoticed
# code: not-saved-for-backward
# fails: same_shapes
# score: 3/4
CAUSE_ScaleShift = "sum-before-multiply"


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x.data, w.data)
        ctx.b_shape = b.shape
        return x * w + b

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return ((grad_output * w).sum_to_size(x.shape), (grad_output * x).sum_to_size(w.shape),
                grad_output.sum_to_size(ctx.b_shape))
