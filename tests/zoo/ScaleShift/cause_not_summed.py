# mistake: the fix is right, but the cause named is the missing un-broadcast, which the engine would have repaired
# feedback: is not what breaks the broken ScaleShift
# code: wrong-cause
# score: 3/4
# fails: cause
CAUSE_ScaleShift = "not-summed"


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        ctx.b_shape = b.shape
        return x * w + b

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return ((grad_output * w).sum_to_size(x.shape), (grad_output * x).sum_to_size(w.shape),
                grad_output.sum_to_size(ctx.b_shape))
