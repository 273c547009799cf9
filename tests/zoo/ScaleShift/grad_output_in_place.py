# mistake: the fix is right, but backward forms x's gradient in grad_output's own memory (grad_output.mul_(w)); b's gradient of the same shape is that very tensor
# feedback: the gradient of b
# code: wrong-derivative
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
        grad_b = grad_output.sum_to_size(ctx.b_shape)
        grad_w = (grad_output * x).sum_to_size(w.shape)
        grad_x = grad_output.mul_(w).sum_to_size(x.shape)      # the last use of grad_output: reuse its memory
        return grad_x, grad_w, grad_b
