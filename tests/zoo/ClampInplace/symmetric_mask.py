# mistake: builds the mask as out.abs() < high, as if the bounds were always -high and high
# feedback: read the mask from the saved output
# code: wrong-derivative
# rule: values
# fails: values
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        x.clamp_(low, high)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        ctx.high = high
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (out.abs() < ctx.high), None, None
