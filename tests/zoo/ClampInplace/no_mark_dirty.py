# mistake: clamps x in place and saves it, but never calls ctx.mark_dirty
# feedback: call ctx.mark_dirty(x)
# code: no-mark-dirty
# rule: version
# fails: version
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.low, ctx.high = low, high
        x.clamp_(low, high)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * ((out > ctx.low) & (out < ctx.high)), None, None
