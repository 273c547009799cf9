# mistake: zeroes grad_output in place where x was clamped (grad_output[~inside] = 0) and returns it: grad_output belongs to autograd
# feedback: in place
# code: inplace-grad-output
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
        grad_output[~inside] = 0
        return grad_output, None, None
