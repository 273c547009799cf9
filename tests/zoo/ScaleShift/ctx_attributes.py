# mistake: the fix is right, but x and w are kept as ctx attributes instead of saved: an in-place change after forward goes unnoticed
# feedback: changing x in place after forward went unnoticed
# code: not-saved-for-backward
# fails: same_shapes
# score: 3/4
CAUSE_ScaleShift = "sum-before-multiply"


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.x, ctx.w = x, w
        ctx.b_shape = b.shape
        return x * w + b

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.x, ctx.w
        return ((grad_output * w).sum_to_size(x.shape), (grad_output * x).sum_to_size(w.shape),
                grad_output.sum_to_size(ctx.b_shape))
