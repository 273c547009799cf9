# mistake: b's gradient is summed to w's shape (a per-feature shift, thought to be shaped like w), wrong when b has a shape of its own
# feedback: input 3 (b)
# code: wrong-grad-shape
# fails: broadcast
# score: 2/4
CAUSE_ScaleShift = "sum-before-multiply"


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return x * w + b

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        # b is a per-feature shift like w: it has w's shape
        return ((grad_output * w).sum_to_size(x.shape), (grad_output * x).sum_to_size(w.shape),
                grad_output.sum_to_size(w.shape))
