# style: save_for_backward(x) called before the in-place change (x is the output all the same), torch.where, a helper, prints
def _inside(out, low, high):
    return (out > low).logical_and(out < high)


class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)          # the tensor x, which is the output once clamped
        ctx.bounds = (low, high)
        print("clamping", tuple(x.shape), "to", (low, high))
        x.clamp_(min=low, max=high)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        low, high = ctx.bounds
        grad = torch.where(_inside(out, low, high), grad_output, torch.zeros_like(grad_output))
        return grad, None, None
