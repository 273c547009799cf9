# mistake: builds the mask from the output (sign(x) is always within [-1, 1]), so nothing is ever clipped
# feedback: also where |x| > 1
# code: no-clipping
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sign(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (y.abs() <= 1)
