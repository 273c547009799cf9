# mistake: masked_fill with the inside mask, which zeroes the gradient inside [-1, 1] instead of outside
# feedback: inverted
# code: inverted-mask
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output.masked_fill(x.abs() <= 1, 0)
