# mistake: clamps x in place but marks a clone dirty and returns the clone
# feedback: ctx.mark_dirty(x)
# code: no-mark-dirty
# rule: version
# fails: version
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        x.clamp_(low, high)
        out = x.clone()
        ctx.mark_dirty(out)
        ctx.save_for_backward(out)
        ctx.low, ctx.high = low, high
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        inside = (out > ctx.low) & (out < ctx.high)
        return grad_output * inside, None, None
