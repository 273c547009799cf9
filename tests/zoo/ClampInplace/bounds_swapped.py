# mistake: passes the bounds to clamp_ in the wrong order (clamp_(high, low)): every element becomes low
# feedback: x clamped to [low, high]
# code: wrong-forward
# rule: values
# fails: values
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        x.clamp_(high, low)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        inside = (out > ctx.low) & (out < ctx.high)
        return grad_output * inside, None, None
