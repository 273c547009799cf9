# mistake: the fix is right, but backward computes in float32 (half the memory): float32's rounding in float64 gradients
# feedback: float32's rounding
# code: float32-precision
# fails: same_shapes
# score: 3/4
CAUSE_ScaleShift = "sum-before-multiply"


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        ctx.b_shape = b.shape
        return x * w + b

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        g, x32, w32 = grad_output.float(), x.float(), w.float()     # half the memory
        return ((g * w32).sum_to_size(x.shape), (g * x32).sum_to_size(w.shape), g.sum_to_size(ctx.b_shape))
