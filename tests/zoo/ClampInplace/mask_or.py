# mistake: combines the two bounds' tests with | instead of &, so the mask is true everywhere
# feedback: let the gradient through everywhere
# code: clamp-mask-all-ones
# rule: values
# fails: values
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        x.clamp_(low, high)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        inside = (out > ctx.low) | (out < ctx.high)
        return grad_output * inside, None, None
