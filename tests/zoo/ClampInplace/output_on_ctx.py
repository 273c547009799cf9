# mistake: keeps the clamped x (the output) as a plain ctx attribute (ctx.out = x) instead of ctx.save_for_backward
# feedback: did not notice
# code: output-change-unnoticed
# rule: saved
# fails: saved
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        x.clamp_(low, high)
        ctx.mark_dirty(x)
        ctx.out = x
        ctx.low, ctx.high = low, high
        return x

    @staticmethod
    def backward(ctx, grad_output):
        inside = (ctx.out > ctx.low) & (ctx.out < ctx.high)
        return grad_output * inside, None, None
