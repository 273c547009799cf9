# mistake: returns zeros as the gradients of the float bounds instead of None
# feedback: return None for each bound
# code: grad-for-bound
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
        (out,) = ctx.saved_tensors
        inside = (out > ctx.low) & (out < ctx.high)
        return grad_output * inside, torch.zeros(()), torch.zeros(())
