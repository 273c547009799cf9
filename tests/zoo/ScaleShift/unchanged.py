# mistake: the broken Function handed in as it was, with the right cause named: w's gradient still summed before the product
# feedback: the same backward is right when every input has the output's shape
# code: broadcast-gradient
# score: 0/4
# fails: cause broadcast same_shapes
# family: symptom-remains
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
        grad_w = grad_output.sum_to_size(w.shape)
        return grad_output * w, grad_w * x, grad_output.sum_to_size(ctx.b_shape)
