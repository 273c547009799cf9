# mistake: reads the mask from the saved x with >= and <=, as for the input; after clamp_ x is the output, so the mask is all ones
# feedback: a mask written with >= and <= is then all ones
# code: clamp-mask-all-ones
# rule: values
# fails: values
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.low, ctx.high = low, high
        x.clamp_(low, high)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        mask = (x >= ctx.low) & (x <= ctx.high)
        return grad_output * mask, None, None
