# mistake: w's gradient is summed over dim 0 when w's shape differs from x's: right for a per-feature w, wrong for a size-1 dimension or a broadcast x
# feedback: the gradient for input 2
# code: wrong-grad-shape
# score: 2/4
# fails: broadcast
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
        grad_w = grad_output * x
        if w.shape != x.shape:
            grad_w = grad_w.sum(dim=0)          # sum over the batch
        return grad_output * w, grad_w, grad_output.sum_to_size(ctx.b_shape)
