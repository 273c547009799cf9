# mistake: the sums are fixed, but w's gradient multiplies grad_output by w instead of x
# feedback: grad_output * x for w
# code: symptom-remains|wrong-derivative
# fails: broadcast cause same_shapes
# score: 0/4
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
        return ((grad_output * w).sum_to_size(x.shape), (grad_output * w).sum_to_size(w.shape),
                grad_output.sum_to_size(ctx.b_shape))
