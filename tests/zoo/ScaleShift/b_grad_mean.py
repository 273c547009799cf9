# mistake: the sums are fixed for x and w, but b's gradient is a mean over the broadcast dims, not a sum
# feedback: gradient of b
# code: broadcast-gradient|wrong-derivative
# fails: broadcast same_shapes
# score: 1/4
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
        gb = grad_output.sum_to_size(ctx.b_shape) * (grad_output.numel() // max(1, torch.Size(ctx.b_shape).numel())) ** -1
        return ((grad_output * w).sum_to_size(x.shape), (grad_output * x).sum_to_size(w.shape), gb)
