# mistake: backward returns (gradient, None): one None for the two bounds
# feedback: one value per forward input
# code: wrong-arity
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
        inside = (out > ctx.low) & (out < ctx.high)
        return grad_output * inside, None
