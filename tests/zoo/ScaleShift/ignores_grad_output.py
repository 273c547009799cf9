# mistake: backward returns the local derivatives (summed to each input's shape) without multiplying by grad_output: wrong for every grad_output but ones
# feedback: it is the same whatever grad_output is
# code: ignores-grad-output
# family: symptom-remains
# score: 0/4
# fails: cause broadcast same_shapes
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
        shape = grad_output.shape
        return w.expand(shape).sum_to_size(x.shape), x.expand(shape).sum_to_size(w.shape), \
            torch.ones(shape, dtype=x.dtype).sum_to_size(ctx.b_shape)
