# A correct ScaleShift with an un-broadcast helper of its own (notebook 03's), split style, and debugging prints.
def unbroadcast(grad, shape):
    extra = grad.dim() - len(shape)
    if extra:
        grad = grad.sum(dim=tuple(range(extra)))
    widened = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(dim=widened, keepdim=True) if widened else grad


CAUSE_ScaleShift = "Sum-Before-Multiply "


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(x, w, b):
        return x * w + b

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, w, b = inputs
        ctx.save_for_backward(x, w)
        ctx.shape_of_b = b.shape

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return (unbroadcast(grad_output * w, x.shape), unbroadcast(grad_output * x, w.shape),
                unbroadcast(grad_output, ctx.shape_of_b))


print("ScaleShift ready")
