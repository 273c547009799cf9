# mistake: saves sign(x) instead of x, so |saved| <= 1 always holds and nothing is ever clipped
# feedback: outside [-1, 1]
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
