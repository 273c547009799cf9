# mistake: clamps out of place and returns the new tensor, leaving x unchanged
# feedback: left x unchanged and returned a new tensor
# code: returns-new-tensor
# rule: version
# fails: version
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.low, ctx.high = low, high
        out = x.clamp(low, high)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * ((out > ctx.low) & (out < ctx.high)), None, None
